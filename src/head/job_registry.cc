#include "head/job_registry.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "posix/dir.h"
#include "posix/file.h"
#include "posix/proc.h"
#include "posix/unix_socket.h"
#include "util/random.h"

namespace muster::head {
namespace {

nlohmann::json to_json(const JobRecord& r) {
  nlohmann::json layout = nlohmann::json::array();
  for (const auto& node : r.layout) {
    layout.push_back({{"node", node.name}, {"first_rank", node.first_rank}, {"count", node.count}});
  }
  return nlohmann::json{{"job_id", r.job_id},       {"run_dir", r.run_dir},
                        {"socket", r.socket},       {"pid", r.pid},
                        {"pid_start", r.pid_start}, {"boot_id", r.boot_id},
                        {"started_unix_ms", r.started_unix_ms},
                        {"ended_unix_ms", r.ended_unix_ms}, {"exit_code", r.exit_code},
                        {"nodes", r.nodes},         {"ranks", r.ranks},
                        {"command", r.command},     {"detached", r.detached},
                        {"error", r.error},          {"attempt", r.attempt},
                        {"excluded", r.excluded},
                        {"layout", std::move(layout)}};
}

// Counts a reader allocates by (`muster logs` makes a reader per rank) within kMaxRecordRanks, and a layout that
// names ranks of the job only.
bool counts_bounded(const JobRecord& r) {
  if (r.nodes < 0 || r.ranks < 0 || r.nodes > kMaxRecordRanks || r.ranks > kMaxRecordRanks) return false;
  if (r.layout.size() > static_cast<size_t>(kMaxRecordRanks)) return false;
  int64_t total = 0;
  for (const auto& node : r.layout) {
    if (node.first_rank < 0 || node.count < 0 || int64_t{node.first_rank} + node.count > r.ranks) return false;
    total += node.count;
  }
  return total <= r.ranks;
}

std::optional<JobRecord> from_json(const std::string& text) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return std::nullopt;
  JobRecord r;
  try {
    r.job_id = json.value("job_id", "");
    r.run_dir = json.value("run_dir", "");
    r.socket = json.value("socket", "");
    r.pid = json.value("pid", 0);
    r.pid_start = json.value("pid_start", uint64_t{0});
    r.boot_id = json.value("boot_id", "");
    r.started_unix_ms = json.value("started_unix_ms", int64_t{0});
    r.ended_unix_ms = json.value("ended_unix_ms", int64_t{0});
    r.exit_code = json.value("exit_code", -1);
    r.nodes = json.value("nodes", 0);
    r.ranks = json.value("ranks", 0);
    r.command = json.value("command", "");
    r.detached = json.value("detached", false);
    r.error = json.value("error", "");
    r.attempt = json.value("attempt", 0);
    r.excluded = json.value("excluded", "");
    if (auto layout = json.find("layout"); layout != json.end() && layout->is_array()) {
      for (const auto& node : *layout) {
        r.layout.push_back({node.value("node", ""), node.value("first_rank", 0), node.value("count", 0)});
      }
    }
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  if (!job_id_problem(r.job_id).empty() || !counts_bounded(r)) return std::nullopt;
  return r;
}

// What a record is read from: this user's own regular file (no link followed, never a FIFO that blocks) that
// group and others cannot write, of a record's size.
std::optional<JobRecord> read_record(const std::string& path) {
  constexpr size_t kMaxRecordBytes = 64u << 20;
  auto fd = posix::open_read(path, true);
  if (!fd) return std::nullopt;
  auto st = posix::stat_fd(fd->get());
  if (!st || st->uid != posix::effective_uid() || (st->mode & 0022) != 0 || st->size > kMaxRecordBytes) {
    return std::nullopt;
  }
  auto text = posix::read_to_end(fd->get());
  if (!text) return std::nullopt;
  return from_json(*text);
}

// The registry's record of `job_id`, if any.
std::optional<JobRecord> registry_record(const std::string& job_id) {
  if (!job_id_problem(job_id).empty()) return std::nullopt;
  auto dir = jobs_dir(false);
  if (!dir) return std::nullopt;
  auto record = read_record(*dir + "/" + job_id + ".json");
  if (record && record->job_id != job_id) return std::nullopt;
  return record;
}

}  // namespace

Result<std::string> jobs_dir(bool create) {
  const char* state = std::getenv("XDG_STATE_HOME");
  std::string base = state && *state == '/' ? std::string(state) : posix::home_directory() + "/.local/state";
  if (base == "/.local/state") return make_error(ErrorKind::usage, "no home directory to keep the job registry in");
  std::string dir = base + "/muster/jobs";
  if (create) {
    if (auto ok = posix::ensure_private_dir(dir); !ok) return ok.error();
  }
  return dir;
}

Result<void> write_job_record(const JobRecord& given) {
  if (auto why = job_id_problem(given.job_id); !why.empty()) return make_error(ErrorKind::usage, "{}", why);
  JobRecord record = given;
  if (record.boot_id.empty()) record.boot_id = posix::boot_id();
  auto dir = jobs_dir(true);
  if (!dir) return dir.error();
  std::string text = to_json(record).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (auto written = posix::write_file_atomic(*dir + "/" + record.job_id + ".json", text, 0600); !written) {
    return written;
  }
  return posix::write_file_atomic(record.run_dir + "/job.json", text, 0600);
}

std::vector<JobRecord> list_job_records() {
  std::vector<JobRecord> records;
  auto dir = jobs_dir(false);
  if (!dir || !posix::path_exists(*dir)) return records;
  auto listing = posix::Dir::open(*dir, {.follow = true});
  if (!listing) return records;
  auto names = listing->names();
  if (!names) return records;
  for (const auto& name : *names) {
    if (name.size() <= 5 || !name.ends_with(".json")) continue;  // <job id>.json
    auto record = read_record(*dir + "/" + name);
    if (record && record->job_id + ".json" == name) records.push_back(std::move(*record));
  }
  std::sort(records.begin(), records.end(),
            [](const JobRecord& a, const JobRecord& b) { return a.started_unix_ms > b.started_unix_ms; });
  return records;
}

Result<JobRecord> find_job(const std::string& which, bool any_state) {
  if (which.empty()) {
    for (const auto& record : list_job_records()) {
      if (any_state || job_state(record) == JobState::running) return record;
    }
    return make_error(ErrorKind::usage, "no {}muster job of yours on this machine (muster ps lists them)",
                      any_state ? "" : "running ");
  }
  if (auto record = registry_record(which)) return *record;
  if (posix::path_exists(which + "/job.json")) {
    auto record = read_record(which + "/job.json");
    if (!record) {
      return make_error(ErrorKind::usage, "{}/job.json is not a muster job record of yours (it must be your own file, "
                                          "which neither group nor others can write)", which);
    }
    if (auto registered = registry_record(record->job_id)) return *registered;  // the registry's word first
    return *record;
  }
  if (auto why = job_id_problem(which); !why.empty()) {
    return make_error(ErrorKind::usage, "no job '{}': {}; give a job id (muster ps lists them) or a run directory",
                      which, why);
  }
  return make_error(ErrorKind::usage, "no job '{}': give a job id (muster ps lists them) or a run directory", which);
}

JobState job_state(const JobRecord& record) {
  if (record.ended_unix_ms > 0) return JobState::ended;
  if (!record.boot_id.empty() && record.boot_id != posix::boot_id()) return JobState::head_died;  // rebooted, or
  return posix::process_alive(record.pid, record.pid_start) ? JobState::running : JobState::head_died;  // elsewhere
}

bool is_own_head(const JobRecord& record) {
  if (record.pid <= 0 || record.boot_id.empty() || record.boot_id != posix::boot_id()) return false;
  if (!posix::process_alive(record.pid, record.pid_start)) return false;
  auto uid = posix::process_uid(record.pid);
  return uid && *uid == posix::effective_uid() && posix::process_name(record.pid).starts_with("muster");
}

const char* job_state_name(JobState state) {
  switch (state) {
    case JobState::running: return "running";
    case JobState::ended: return "ended";
    case JobState::head_died: return "head died";
  }
  return "?";
}

Result<std::string> new_socket_path() {
  auto dir = jobs_dir(true);
  if (!dir) return dir.error();
  std::string path = fmt::format("{}/{}.sock", *dir, random_hex(12));
  if (path.size() > posix::max_unix_socket_path()) {
    return make_error(ErrorKind::usage, "the control socket path {} is longer than a unix socket allows ({} bytes): "
                                        "set XDG_STATE_HOME to a shorter directory", path, posix::max_unix_socket_path());
  }
  return path;
}

}  // namespace muster::head
