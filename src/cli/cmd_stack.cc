// `muster stack [RUN-DIR|JOB-ID]`: every rank's stack of a running job, grouped, the odd ones named; the work is
// the job's head (launch/job_control.h), reached through its control socket.
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "head/control_server.h"
#include "head/job_registry.h"

namespace muster::cli {

int run_stack(const std::vector<std::string>& args) {
  auto app = make_app("stack", "Print every rank's stack of a running job (Python stacks of all threads; a native "
                               "stack where Python's is not available), grouped by where the ranks are, the odd "
                               "ones named. All stacks are saved in the run directory.");
  std::string which;
  bool full = false;
  double timeout_s = 40;
  app->add_option("JOB", which, "a job id or run directory (default: your newest running job)");
  app->add_flag("--full", full, "also print every rank's whole stack");
  app->add_option("--timeout", timeout_s, "seconds to wait for the stacks")->check(CLI::Range(1.0, 3600.0));
  if (auto code = parse_command_line(*app, args)) return *code;
  auto job = head::find_job(which);
  if (!job) return report_error(job.error());
  auto state = head::job_state(*job);
  if (state != head::JobState::running) {
    return report_error(make_error(ErrorKind::usage, "job {} is not running ({}); muster why {} tells what happened",
                                   job->job_id, head::job_state_name(state), job->job_id));
  }
  auto reply = head::control_request(job->socket, {{"op", "stack"}}, static_cast<int>(timeout_s * 1000));
  if (!reply) return report_error(reply.error());
  if (!reply->value("ok", false)) {
    return report_error(make_error(ErrorKind::remote, "job {}: {}", job->job_id, reply->value("error", "?")));
  }
  fmt::print("stacks of job {} (all of them: {}):\n{}\n", job->job_id, reply->value("file", ""),
             reply->value("summary", ""));
  if (full) fmt::print("\n{}", reply->value("stacks", ""));
  return kExitOk;
}

}  // namespace muster::cli
