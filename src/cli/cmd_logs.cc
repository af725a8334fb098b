// `muster logs [JOB]`: a job's rank logs from its run directory; the work is jobs::run_logs.
#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "jobs/job_logs.h"

namespace muster::cli {

int run_logs(const std::vector<std::string>& args) {
  auto app = make_app("logs", "Print a job's rank logs (one rank: its output as written; several: their lines "
                              "prefixed [node:rank]); -f follows them until the job ends.");
  jobs::LogsOptions options;
  app->add_option("JOB", options.which, "a job id or run directory (default: your newest job)");
  app->add_option("-r,--rank", options.ranks, "the ranks, e.g. 1 or 0,2-3 (default all)");
  app->add_option("-n,--node", options.node, "only the ranks of this node (its name, or its index in the job)");
  app->add_flag("-f,--follow", options.follow, "keep printing what the ranks write until the job ends");
  if (auto code = parse_command_line(*app, args)) return *code;
  auto code = jobs::run_logs(options);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
