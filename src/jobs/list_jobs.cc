#include "jobs/list_jobs.h"

#include <chrono>

#include <fmt/core.h>

#include "head/job_registry.h"
#include "jobs/job_table.h"

namespace muster::jobs {

Result<int> run_ps(const PsOptions& options) {
  std::vector<JobRow> rows;
  for (auto& record : head::list_job_records()) {
    auto state = head::job_state(record);
    rows.push_back({std::move(record), state});
  }
  rows = rows_to_show(std::move(rows), options.all);
  if (options.json) {
    fmt::print("{}\n", job_rows_json(rows).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return 0;
  }
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count();
  fmt::print("{}", format_job_table(rows, now));
  return 0;
}

}  // namespace muster::jobs
