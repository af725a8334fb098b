// `muster ps`: this user's jobs on this machine as a table or JSON, from the job registry (head/job_registry.h)
// with each job's state decided once (a head that died is "head died", never "running"). Pure: the caller reads
// the records and their states and passes the time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "head/job_registry.h"

namespace muster::jobs {

struct JobRow {
  head::JobRecord record;
  head::JobState state = head::JobState::running;
};

inline constexpr size_t kRecentEnded = 10;  // ended jobs `ps` shows without --all

// The rows `ps` shows, newest first: every running job and every head that died, and the kRecentEnded newest
// ended jobs (`all`: every job).
std::vector<JobRow> rows_to_show(std::vector<JobRow> rows, bool all);

// "running", "exit 0", "exit 130", "not started", "head died".
std::string state_text(const JobRow& row);
// 45s, 12m, 3h5m, 2d4h: the time since `since_ms` (unix ms) at `now_ms`.
std::string format_age(int64_t since_ms, int64_t now_ms);

// JOB STATE NODES RANKS AGE RUN DIR, one line per row with a header; a line saying there are none otherwise.
std::string format_job_table(const std::vector<JobRow>& rows, int64_t now_ms);
nlohmann::json job_rows_json(const std::vector<JobRow>& rows);

}  // namespace muster::jobs
