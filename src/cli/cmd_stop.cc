// `muster stop [JOB]`: stops a running job as Ctrl-C on its head would; the work is jobs::run_stop.
#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "jobs/stop_job.h"

namespace muster::cli {

int run_stop(const std::vector<std::string>& args) {
  auto app = make_app("stop", "Stop a running job as Ctrl-C on its head would: SIGINT to every rank, SIGKILL after "
                              "its --grace; a second stop kills them at once. Waits until the job has ended.");
  jobs::StopOptions options;
  app->add_option("JOB", options.which, "a job id or run directory (default: your newest running job)");
  app->add_flag("-k,--kill", options.kill, "SIGKILL every rank now");
  app->add_flag("--no-wait", [&options](int64_t) { options.wait = false; }, "return once the job was asked to stop");
  app->add_option("--timeout", options.timeout_s, "seconds to wait for the job to end")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  if (auto code = parse_command_line(*app, args)) return *code;
  auto code = jobs::run_stop(options);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
