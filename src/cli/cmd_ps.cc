// `muster ps`: this user's jobs on this machine; the table is jobs::format_job_table.
#include <chrono>

#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "head/job_registry.h"
#include "jobs/job_table.h"

namespace muster::cli {

int run_ps(const std::vector<std::string>& args) {
  auto app = make_app("ps", "List your muster jobs on this machine: running ones (also those launched with "
                            "--detach), jobs whose head died, and the most recent ended ones.");
  bool all = false, json = false;
  app->add_flag("-a,--all", all, "every job in the registry, not only running and recent ones");
  app->add_flag("--json", json, "print the jobs as JSON");
  if (auto code = parse_command_line(*app, args)) return *code;
  std::vector<jobs::JobRow> rows;
  for (auto& record : head::list_job_records()) {
    auto state = head::job_state(record);
    rows.push_back({std::move(record), state});
  }
  rows = jobs::rows_to_show(std::move(rows), all);
  if (json) {
    fmt::print("{}\n", jobs::job_rows_json(rows).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return kExitOk;
  }
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count();
  fmt::print("{}", jobs::format_job_table(rows, now));
  return kExitOk;
}

}  // namespace muster::cli
