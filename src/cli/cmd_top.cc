// `muster top [JOB]`: a running job's telemetry, live; the work is jobs::run_top (the job's head answers).
#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "jobs/top_client.h"

namespace muster::cli {

int run_top(const std::vector<std::string>& args) {
  auto app = make_app("top", "Show a running job live, refreshed every second: a row per node (Enter shows its ranks): "
                             "steps/s, step time p50/p95, compute share, the gap to the other ranks' median, CPU, "
                             "memory, network, disk and GPUs; stragglers marked with their likely cause. Keys: "
                             "arrows move, Enter expands, a expands all, < > change the sort column, r reverses, s "
                             "sorts slowest first, q quits.");
  jobs::TopOptions options;
  app->add_option("JOB", options.which, "a job id or run directory (default: your newest running job)");
  app->add_flag("--once", options.once, "print the table once and exit (also what it does when stdout is not a terminal)");
  app->add_flag("--json", options.json, "print every refresh as one JSON object per line, every rank included "
                                        "(with --once: one)");
  app->add_option("--expand", options.expand, "show these nodes' ranks from the start ('all': every node's)")
      ->delimiter(',');
  app->add_option("--sort", options.sort, "sort by this column (its title, e.g. GAP% or CPU%; default: node name)");
  app->add_option("--interval", options.interval_s, "seconds between refreshes")->check(CLI::Range(0.2, 60.0));
  if (auto code = parse_command_line(*app, args)) return *code;
  auto code = jobs::run_top(options);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
