// `muster ps`: this user's jobs on this machine; the work is jobs::run_ps.
#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "jobs/list_jobs.h"

namespace muster::cli {

int run_ps(const std::vector<std::string>& args) {
  auto app = make_app("ps", "List your muster jobs on this machine: running ones (also those launched with "
                            "--detach), jobs whose head died, and the most recent ended ones.");
  jobs::PsOptions options;
  app->add_flag("-a,--all", options.all, "every job in the registry, not only running and recent ones");
  app->add_flag("--json", options.json, "print the jobs as JSON");
  if (auto code = parse_command_line(*app, args)) return *code;
  auto code = jobs::run_ps(options);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
