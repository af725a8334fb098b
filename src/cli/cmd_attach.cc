// `muster attach [JOB]`: the live view of a running job; the work is jobs::run_attach.
#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "jobs/attach_client.h"

namespace muster::cli {

int run_attach(const std::vector<std::string>& args) {
  auto app = make_app("attach", "Show a running job's output live, as if it had been launched in this terminal "
                                "(also one launched with --detach). Ctrl-C detaches and leaves it running.");
  jobs::AttachOptions options;
  app->add_option("JOB", options.which, "a job id or run directory (default: your newest running job)");
  app->add_flag("--stop", options.stop_on_interrupt,
                "Ctrl-C stops the job (as on its head: SIGINT to every rank; twice: SIGKILL) instead of detaching");
  app->add_option("--ranks", options.ranks, "ranks shown, e.g. 0 or 0,2-3 (default all)");
  if (auto code = parse_command_line(*app, args)) return *code;
  auto code = jobs::run_attach(options);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
