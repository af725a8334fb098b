// `muster stack [RUN-DIR|JOB-ID]`: every rank's stack of a running job, grouped, the odd ones named; the work is
// jobs::run_stack (the job's head collects them, launch/job_control.h).
#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "jobs/stack_client.h"

namespace muster::cli {

int run_stack(const std::vector<std::string>& args) {
  auto app = make_app("stack", "Print every rank's stack of a running job (Python stacks of all threads; a native "
                               "stack where Python's is not available), grouped by where the ranks are, the odd "
                               "ones named. All stacks are saved in the run directory.");
  jobs::StackOptions options;
  app->add_option("JOB", options.which, "a job id or run directory (default: your newest running job)");
  app->add_flag("--full", options.full, "also print every rank's whole stack");
  app->add_option("--timeout", options.timeout_s, "seconds to wait for the stacks")
      ->check(CLI::Range(1.0, 3600.0));
  if (auto code = parse_command_line(*app, args)) return *code;
  auto code = jobs::run_stack(options);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
