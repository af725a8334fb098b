// `muster launch`'s telemetry flags (docs/design/telemetry.md), into LaunchOptions::telemetry.
#include "cli/launch_flags.h"

#include "telemetry/step_lines.h"

namespace muster::cli {

void add_telemetry_flags(CLI::App& app, launch::LaunchRequest& request) {
  const char* group = "Telemetry";
  launch::TelemetryOptions& t = request.job.telemetry;
  app.add_option_function<std::string>(
         "--telemetry", [&t](const std::string& value) { t.enabled = value == "on"; },
         "node figures and step timing from every node each second, stragglers named, report.html (default on)")
      ->check(CLI::IsMember({"on", "off"}))
      ->group(group);
  app.add_option("--step-pattern", t.step_pattern,
                 "a regular expression (ECMAScript): an output line matching it counts as one training step of its "
                 "rank, for programs the Python hook cannot count (no torch.optim)")
      ->check([](const std::string& pattern) {
        auto compiled = telemetry::compile_step_pattern(pattern);
        return compiled ? std::string() : compiled.error().message;
      })
      ->group(group);
  app.add_option_function<double>(
         "--straggler-threshold", [&t](double percent) { t.straggler_threshold = percent / 100; },
         "name a rank a straggler when its compute per step is this many percent above the other ranks' median "
         "(default 10)")
      ->check(CLI::Range(1.0, 1000.0))
      ->group(group);
  app.add_option_function<double>(
         "--straggler-window", [&t](double seconds) { t.straggler_window_ms = static_cast<int64_t>(seconds * 1000); },
         "... over this many seconds (default 60)")
      ->check(CLI::Range(5.0, 86400.0))
      ->group(group);
  app.add_option("--metrics-textfile", t.metrics_textfile,
                 "write the live figures every 5 s in Prometheus' text format to FILE (for node_exporter's textfile "
                 "collector: a .prom file in its directory); removed when the job ends")
      ->type_name("FILE")
      ->group(group);
}

}  // namespace muster::cli
