// `muster why [RUN-DIR|JOB-ID]`: what happened to a finished job; the work is launch::explain_run.
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "diagnosis/catalogue.h"
#include "launch/why.h"

namespace muster::cli {

int run_why(const std::vector<std::string>& args) {
  auto app = make_app("why", "Say what happened to a finished job and what to do about it, from its run directory "
                             "(the newest job by default): the failure's cause with its fix, and its stalls.");
  launch::WhyOptions options;
  std::vector<std::string> failure_files;
  app->add_option("JOB", options.which, "a run directory or job id (default: your newest job)");
  app->add_flag("--rematch", options.rematch,
                "match the rank logs against the catalogue again now (after adding an entry of your own)");
  app->add_option("--failures", failure_files, "a failure catalogue of your own, matched first (with --rematch)")
      ->allow_extra_args(false);
  app->add_flag("--json", options.json, "print the diagnosis as JSON");
  if (auto code = parse_command_line(*app, args)) return *code;
  auto catalogue = diagnosis::load_catalogues(failure_files);
  if (!catalogue) return report_error(catalogue.error());
  auto report = launch::explain_run(options, *catalogue);
  if (!report) return report_error(report.error());
  fmt::print("{}", *report);
  return kExitOk;
}

}  // namespace muster::cli
