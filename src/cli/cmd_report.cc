// `muster report [JOB]`: a job's run report (report.html) rendered again from its run directory; the work is
// launch::write_run_report.
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "launch/run_report.h"

namespace muster::cli {

int run_report(const std::vector<std::string>& args) {
  auto app = make_app("report", "Write a job's run report: one self-contained HTML file (no network) with every rank's "
                                "step time, compute and wait per step, each node's and GPU's telemetry, and the job's "
                                "events (start, restarts, exclusions, stalls, stragglers, failure) on one time axis. A "
                                "finished job has it already (report.html in its run directory); a running one gets "
                                "what its head saved so far (once a minute).");
  launch::ReportOptions options;
  app->add_option("JOB", options.which, "a run directory or job id (default: your newest job)");
  app->add_option("-o,--output", options.output, "where to write it (default: <run dir>/report.html)")->type_name("FILE");
  if (auto code = parse_command_line(*app, args)) return *code;
  auto path = launch::write_run_report(options);
  if (!path) return report_error(path.error());
  fmt::print("{}\n", *path);
  return kExitOk;
}

}  // namespace muster::cli
