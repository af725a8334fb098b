#include "launch/run_report.h"

#include <ctime>

#include <fmt/core.h>

#include "launch/why.h"
#include "posix/file.h"
#include "telemetry/report_html.h"
#include "telemetry/store.h"

namespace muster::launch {
namespace {

std::string clock_time(int64_t unix_ms) {
  std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  char text[16];
  std::strftime(text, sizeof text, "%H:%M:%S", &local);
  return text;
}

std::string headline(const nlohmann::json& manifest, const telemetry::Store& store) {
  size_t nodes = store.nodes().size(), ranks = store.ranks().size();
  std::string text = fmt::format("{} node{}, {} rank{}", nodes, nodes == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s");
  if (manifest.contains("exit_code")) text += fmt::format(", exit code {}", manifest["exit_code"].get<int>());
  else text += " (still running: figures up to the last save, once a minute)";
  auto attempts = manifest.value("attempts", nlohmann::json::array());
  if (attempts.size() > 1) text += fmt::format(", {} attempts", attempts.size());
  auto stragglers = manifest.value("telemetry", nlohmann::json::object()).value("stragglers", nlohmann::json::array());
  text += stragglers.empty() ? ", no straggler" : fmt::format(", {} straggler{} named", stragglers.size(), stragglers.size() == 1 ? "" : "s");
  return text;
}

}  // namespace

Result<std::string> write_run_report(const ReportOptions& options) {
  auto run_dir = resolve_run_dir(options.which);
  if (!run_dir) return run_dir.error();
  std::string store_path = *run_dir + "/telemetry.zst";
  auto bytes = posix::read_text_file(store_path);
  if (!bytes) {
    return make_error(ErrorKind::usage, "{} has no telemetry.zst: the job ran with --telemetry off, or has run for less "
                                        "than a minute (the store is saved every minute and at the end)", *run_dir);
  }
  auto store = telemetry::Store::parse(*bytes);
  if (!store) return make_error(ErrorKind::parse, "{}: {}", store_path, store.error().message);
  nlohmann::json manifest = nlohmann::json::object();
  if (auto text = posix::read_text_file(*run_dir + "/manifest.json")) {
    auto parsed = nlohmann::json::parse(*text, nullptr, false);
    if (parsed.is_object()) manifest = std::move(parsed);
  }
  std::string job_id = manifest.value("job_id", std::string());
  if (job_id.empty()) {
    if (auto record = posix::read_text_file(*run_dir + "/job.json")) {
      auto parsed = nlohmann::json::parse(*record, nullptr, false);
      if (parsed.is_object()) job_id = parsed.value("job_id", std::string());
    }
  }
  nlohmann::json telemetry = manifest.value("telemetry", nlohmann::json::object());
  nlohmann::json summary{{"job_id", job_id},
                         {"headline", headline(manifest, *store)},
                         {"stragglers", telemetry.value("stragglers", nlohmann::json::array())}};
  if (manifest.contains("exit_code")) summary["exit_code"] = manifest["exit_code"];
  std::string path = options.output.empty() ? *run_dir + "/report.html" : options.output;
  if (auto written = posix::write_file_atomic(path, telemetry::render_report(*store, summary), 0600); !written) {
    return written.error();
  }
  return path;
}

std::string format_stragglers(const nlohmann::json& manifest) {
  auto telemetry = manifest.find("telemetry");
  if (telemetry == manifest.end() || !telemetry->is_object() || !telemetry->value("enabled", false)) return "";
  double threshold = telemetry->value("threshold", 0.1) * 100;
  int window = telemetry->value("window_s", 60);
  auto named = telemetry->value("stragglers", nlohmann::json::array());
  if (named.empty()) {
    return fmt::format("no straggler: no rank's compute per step stayed {:.0f} % above the other ranks' median over "
                       "{} s\n", threshold, window);
  }
  std::string text = fmt::format("stragglers (compute per step {:.0f} % or more above the other ranks' median over "
                                 "{} s; the others waited for them):\n", threshold, window);
  for (const auto& s : named) {
    std::string until = s.contains("until_unix_ms") ? " to " + clock_time(s["until_unix_ms"].get<int64_t>()) : " on";
    text += fmt::format("  rank {} on {} (attempt {}), from {}{}: {:+.0f} % compute per step at its last look ({:.1f} ms "
                        "against {:.1f} ms; at most {:+.0f} %); likely cause: {}\n",
                        s.value("rank", 0), s.value("node", std::string("?")), s.value("attempt", 0) + 1,
                        clock_time(s.value("since_unix_ms", int64_t{0})), until, s.value("gap", 0.0) * 100,
                        s.value("compute_ms", 0.0), s.value("median_ms", 0.0),
                        std::max(s.value("peak_gap", 0.0), s.value("gap", 0.0)) * 100, s.value("cause", std::string()));
  }
  return text;
}

}  // namespace muster::launch
