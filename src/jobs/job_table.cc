#include "jobs/job_table.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::jobs {

std::vector<JobRow> rows_to_show(std::vector<JobRow> rows, bool all) {
  std::stable_sort(rows.begin(), rows.end(), [](const JobRow& a, const JobRow& b) {
    return a.record.started_unix_ms > b.record.started_unix_ms;
  });
  if (all) return rows;
  std::vector<JobRow> shown;
  size_t ended = 0;
  for (auto& row : rows) {
    if (row.state == head::JobState::ended && ++ended > kRecentEnded) continue;
    shown.push_back(std::move(row));
  }
  return shown;
}

std::string state_text(const JobRow& row) {
  // After a restart: which attempt (1-based, as muster's notices count them).
  std::string attempt = row.record.attempt > 0 ? fmt::format(", attempt {}", row.record.attempt + 1) : "";
  switch (row.state) {
    case head::JobState::running: return "running" + attempt;
    case head::JobState::head_died: return "head died";
    case head::JobState::ended:
      if (!row.record.error.empty()) return "not started";
      return fmt::format("exit {}{}", row.record.exit_code, attempt);
  }
  return "?";
}

std::string format_age(int64_t since_ms, int64_t now_ms) {
  int64_t s = std::max<int64_t>(0, (now_ms - since_ms) / 1000);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m", s / 60);
  if (s < 86400) return s % 3600 >= 60 ? fmt::format("{}h{}m", s / 3600, s % 3600 / 60) : fmt::format("{}h", s / 3600);
  return s % 86400 >= 3600 ? fmt::format("{}d{}h", s / 86400, s % 86400 / 3600) : fmt::format("{}d", s / 86400);
}

std::string format_job_table(const std::vector<JobRow>& rows, int64_t now_ms) {
  if (rows.empty()) return "no muster jobs of yours on this machine\n";
  size_t id_width = 3, state_width = 5;
  for (const auto& row : rows) {
    id_width = std::max(id_width, row.record.job_id.size());
    state_width = std::max(state_width, state_text(row).size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:>5}  {:>5}  {:>6}  {}\n", "JOB", id_width, "STATE", state_width,
                                "NODES", "RANKS", "AGE", "RUN DIR");
  for (const auto& row : rows) {
    const auto& r = row.record;
    out += fmt::format("{:<{}}  {:<{}}  {:>5}  {:>5}  {:>6}  {}\n", r.job_id, id_width, state_text(row), state_width,
                       r.nodes, r.ranks, format_age(r.started_unix_ms, now_ms), r.run_dir);
    if (!r.excluded.empty()) out += fmt::format("{:<{}}  excluded: {}\n", "", id_width, r.excluded);
  }
  return out;
}

nlohmann::json job_rows_json(const std::vector<JobRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : rows) {
    const auto& r = row.record;
    nlohmann::json job{{"job_id", r.job_id},
                       {"state", head::job_state_name(row.state)},
                       {"nodes", r.nodes},
                       {"ranks", r.ranks},
                       {"run_dir", r.run_dir},
                       {"started_unix_ms", r.started_unix_ms},
                       {"head_pid", r.pid},
                       {"detached", r.detached},
                       {"command", r.command},
                       {"attempt", r.attempt},
                       {"excluded", r.excluded}};
    if (row.state == head::JobState::ended) {
      job["ended_unix_ms"] = r.ended_unix_ms;
      job["exit_code"] = r.exit_code;
      if (!r.error.empty()) job["error"] = r.error;
    }
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace muster::jobs
