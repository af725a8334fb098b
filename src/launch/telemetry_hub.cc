#include "launch/telemetry_hub.h"

#include <cmath>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/file.h"
#include "posix/system_info.h"
#include "telemetry/cause.h"
#include "telemetry/prometheus.h"
#include "telemetry/report_html.h"
#include "telemetry/samples.h"
#include "util/text.h"

namespace muster::launch {
namespace {

constexpr int64_t kSaveEveryMs = 60'000;
constexpr int64_t kExportEveryMs = 5'000;

std::string percent(double gap) { return fmt::format("{:+.0f} %", gap * 100); }

}  // namespace

TelemetryHub::TelemetryHub(const LaunchOptions& options, std::string job_id, std::string run_dir,
                           AgentLink& agents, LaunchOutput& output, const JobMachine& machine)
    : options_(options.telemetry),
      per_node_(options.per_node),
      job_id_(std::move(job_id)),
      run_dir_(std::move(run_dir)),
      agents_(agents),
      output_(output),
      machine_(machine),
      unix_offset_ms_(posix::unix_time_ms() - posix::monotonic_ms()),
      store_(posix::unix_time_ms()),
      live_(options.telemetry.straggler_window_ms),
      detector_({options.telemetry.straggler_threshold, options.telemetry.straggler_window_ms}),
      first_steps_(options.telemetry.enabled && !options.telemetry.step_pattern.empty()) {}

void TelemetryHub::prepare_spawn(size_t node, protocol::SpawnWorker& spawn) {
  if (!options_.enabled) return;
  if (started_.emplace(node, static_cast<int>(spawn.attempt)).second) {
    agents_.send(node, protocol::TelemetryStart{static_cast<uint32_t>(options_.interval_ms), options_.step_pattern,
                                                protocol::kTelemetryTqdm});
  }
  spawn.features |= protocol::kFeatureSteps;
}

void TelemetryHub::on_message(size_t node, const protocol::AgentMessage& message, int64_t now_ms) {
  const auto* frame = std::get_if<protocol::Telemetry>(&message);
  if (!frame || !options_.enabled) return;
  const Attempt* attempt = machine_.current();
  std::string name = machine_.roster().name(node);
  telemetry::NodeSample sample = telemetry::from_message(*frame);
  // Only this attempt's ranks: a frame sent before the agent heard of the new attempt may still name old ones.
  if (attempt && attempt->gang && !per_node_) {
    std::erase_if(sample.ranks, [&](const telemetry::RankSample& rank) {
      return rank.rank >= static_cast<uint32_t>(attempt->plan.world_size) || attempt->node_of_rank(static_cast<int>(rank.rank)) != node;
    });
  }
  if (attempt) first_steps_.add(attempt->number, sample.ranks);
  store_.add(name, sample, unix_of(now_ms));
  live_.add(name, sample, now_ms);
  for (const auto& rank : sample.ranks) {
    if (rank.steps > 0 && rank.source != 0) detector_.add(rank.rank, now_ms, rank.compute_us / 1000.0);
  }
}

void TelemetryHub::tick(int64_t now_ms) {
  if (!options_.enabled || now_ms < next_second_ms_) return;
  next_second_ms_ = now_ms + 1000;
  second(now_ms);
}

void TelemetryHub::second(int64_t now_ms) {
  follow_machine(now_ms);
  judge(now_ms);
  std::string status = status_line();
  if (status != last_status_) {
    output_.status(status);
    last_status_ = status;
  }
  if (!options_.metrics_textfile.empty() && now_ms >= next_export_ms_) {
    next_export_ms_ = now_ms + kExportEveryMs;
    export_textfile(now_ms);
  }
  if (now_ms >= next_save_ms_) {
    if (next_save_ms_ != 0) save();
    next_save_ms_ = now_ms + kSaveEveryMs;
  }
}

void TelemetryHub::event(int64_t mono_ms, std::string kind, std::string text, int rank, std::string node) {
  store_.event({unix_of(mono_ms), std::move(kind), std::move(text), rank, std::move(node)});
}

// The job machine's story as events: attempts started and ended, stalls, nodes excluded.
void TelemetryHub::follow_machine(int64_t now_ms) {
  const auto& attempts = machine_.attempts();
  // An attempt's failure before the restart that followed it (both at the same millisecond: the events keep their
  // order).
  for (const auto& a : attempts) {
    if (a->stalled && stalls_seen_.insert(a->number).second) {
      event(now_ms, "stall", fmt::format("attempt {}: no rank made progress for {} s", a->number + 1,
                                         machine_.stall().silent_ms(now_ms) / 1000));
    }
    if (a->ended_ms == 0 || !a->gang || !a->gang->all_ended() || ended_seen_.contains(a->number)) continue;
    ended_seen_.insert(a->number);
    if (auto root = a->gang->root_cause()) {
      std::string node = machine_.roster().name(a->node_of_rank(*root));
      event(a->ended_ms, "failure",
            a->decision.empty()
                ? fmt::format("attempt {}: rank {} on {}: {}", a->number + 1, *root, node, a->gang->status(*root).detail)
                : fmt::format("attempt {}: {}", a->number + 1, a->decision),
            *root, node);
    }  // an attempt that ended well is the job's end, said by finish()
  }
  for (; attempts_seen_ < attempts.size(); ++attempts_seen_) {
    const Attempt& a = *attempts[attempts_seen_];
    std::string nodes = machine_.roster().names(a.nodes);
    if (a.number == 0) {
      event(a.started_ms ? a.started_ms : now_ms, "start", fmt::format("{} ranks on {}", a.plan.world_size, nodes));
    } else {
      std::string joined = a.joined.empty() ? "" : fmt::format(", spares {} joined", machine_.roster().names(a.joined));
      event(a.started_ms ? a.started_ms : now_ms, "restart",
            fmt::format("attempt {} on {}{}: {}", a.number + 1, nodes, joined, a.reason));
    }
  }
  const Attempt* current = machine_.current();
  if (current && current->number != attempt_) {  // a new attempt: its ranks are judged afresh
    attempt_ = current->number;
    detector_.reset();
    live_.forget_ranks();
    stragglers_.clear();
  }
  const auto& roster = machine_.roster();
  for (size_t node : roster.excluded()) {
    const auto& exclusion = roster.exclusion(node);
    std::string key = fmt::format("{}/{}", node, exclusion->attempt);
    if (exclusions_seen_.insert(key).second) {
      event(now_ms, "exclude", fmt::format("{} left out: {}", roster.name(node), exclusion->reason), -1, roster.name(node));
    }
  }
}

void TelemetryHub::judge(int64_t now_ms) {
  if (!machine_.ranks_running()) return;
  for (const auto& change : detector_.evaluate(now_ms)) {
    if (change.named) name(change.rank, change.standing, now_ms);
    else unname(change.rank, change.standing, now_ms);
  }
  // Causes get clearer as the figures of the window come in, and the gap changes: kept current while a rank stays
  // named (with the largest gap seen).
  for (auto& [rank, note] : stragglers_) note.cause = join(telemetry::likely_causes(live_.cause_facts(rank)), "; ");
  for (auto& entry : named_) {
    uint32_t rank = entry["rank"].get<uint32_t>();
    auto it = stragglers_.find(rank);
    if (it == stragglers_.end() || entry.contains("until_unix_ms") || entry["attempt"] != attempt_) continue;
    entry["cause"] = it->second.cause;
    const auto& standing = detector_.standings().at(rank);
    entry["gap"] = std::round(standing.recent_gap * 1000) / 1000;
    entry["window_gap"] = std::round(standing.gap * 1000) / 1000;
    entry["compute_ms"] = std::round(standing.recent_compute_ms * 10) / 10;
    entry["median_ms"] = std::round(standing.recent_median_ms * 10) / 10;
    entry["peak_gap"] = std::max(entry.value("peak_gap", 0.0), entry["gap"].get<double>());
  }
}

void TelemetryHub::name(uint32_t rank, const telemetry::StragglerDetector::Standing& standing, int64_t now_ms) {
  std::string node = live_.node_of(rank).value_or("?");
  std::string cause = join(telemetry::likely_causes(live_.cause_facts(rank)), "; ");
  stragglers_[rank] = {unix_of(now_ms), node, cause};
  std::string text = fmt::format("straggler: rank {} on {} computes {} per step against the other ranks' median now "
                                 "({:.1f} ms against {:.1f} ms), and over {} % more for most of the last {} s: the "
                                 "others wait for it. Likely cause: {}",
                                 rank, node, percent(standing.recent_gap), standing.recent_compute_ms,
                                 standing.recent_median_ms, std::lround(options_.straggler_threshold * 100),
                                 options_.straggler_window_ms / 1000, cause);
  output_.notice(text);
  event(now_ms, "straggler",
        fmt::format("rank {} on {}: {} compute per step; {}", rank, node, percent(standing.recent_gap), cause),
        static_cast<int>(rank), node);
  named_.push_back({{"attempt", attempt_},
                    {"rank", rank},
                    {"node", node},
                    {"since_unix_ms", unix_of(now_ms)},
                    {"gap", std::round(standing.recent_gap * 1000) / 1000},
                    {"window_gap", std::round(standing.gap * 1000) / 1000},
                    {"compute_ms", std::round(standing.recent_compute_ms * 10) / 10},
                    {"median_ms", std::round(standing.recent_median_ms * 10) / 10},
                    {"cause", cause}});
}

void TelemetryHub::unname(uint32_t rank, const telemetry::StragglerDetector::Standing& standing, int64_t now_ms) {
  auto it = stragglers_.find(rank);
  if (it == stragglers_.end()) return;
  std::string node = it->second.node;
  stragglers_.erase(it);
  output_.notice(fmt::format("rank {} on {} is no longer a straggler ({} compute per step now)", rank, node,
                             percent(standing.recent_gap)));
  event(now_ms, "straggler-end", fmt::format("rank {} on {}: {} now", rank, node, percent(standing.recent_gap)),
        static_cast<int>(rank), node);
  for (auto& entry : named_) {
    if (entry["rank"] == rank && entry["attempt"] == attempt_ && !entry.contains("until_unix_ms")) {
      entry["until_unix_ms"] = unix_of(now_ms);
    }
  }
}

std::string TelemetryHub::status_line() const {
  auto rate = live_.steps_per_s();
  if (!rate) return "";
  std::string line = fmt::format("{:.2f} steps/s", *rate);
  if (auto slowest = detector_.slowest()) {
    const auto& standing = detector_.standings().at(*slowest);
    line += fmt::format(", slowest rank {} ({}) {}", *slowest, live_.node_of(*slowest).value_or("?"),
                        percent(standing.gap));
  }
  if (!stragglers_.empty()) line += fmt::format(", {} straggler{}", stragglers_.size(), stragglers_.size() == 1 ? "" : "s");
  return line;
}

nlohmann::json TelemetryHub::top(bool all_ranks, const std::set<std::string>& expand, int64_t now_ms) const {
  nlohmann::json snapshot = live_.snapshot({all_ranks, expand}, detector_, stragglers_, now_ms);
  snapshot["job_id"] = job_id_;
  snapshot["unix_ms"] = unix_of(now_ms);
  snapshot["telemetry"] = options_.enabled;
  snapshot["threshold"] = options_.straggler_threshold;
  snapshot["window_s"] = options_.straggler_window_ms / 1000;
  if (const Attempt* attempt = machine_.current()) {
    snapshot["attempt"] = attempt->number;
    snapshot["world_size"] = attempt->plan.world_size;
  }
  snapshot["running"] = machine_.ranks_running();
  return snapshot;
}

void TelemetryHub::export_textfile(int64_t now_ms) {
  std::string text = telemetry::prometheus_text(top(true, {}, now_ms), job_id_);
  if (auto written = posix::write_file_atomic(options_.metrics_textfile, text, 0644); !written && !save_error_shown_) {
    save_error_shown_ = true;
    output_.notice("cannot write --metrics-textfile: " + written.error().message);
  }
}

void TelemetryHub::save() {
  auto written = posix::write_file_atomic(run_dir_ + "/telemetry.zst", store_.serialize(), 0600);
  if (!written && !save_error_shown_) {
    save_error_shown_ = true;
    output_.notice("cannot save the job's telemetry: " + written.error().message);
  }
}

nlohmann::json TelemetryHub::finish(int exit_code, int64_t now_ms) {
  nlohmann::json part{{"enabled", options_.enabled}};
  if (!options_.enabled) return part;
  follow_machine(now_ms);
  event(now_ms, exit_code == 0 ? "end" : "failure", fmt::format("the job ended: exit code {}", exit_code));
  save();
  if (!options_.metrics_textfile.empty()) posix::remove_file(options_.metrics_textfile);
  nlohmann::json summary{{"job_id", job_id_},
                         {"exit_code", exit_code},
                         {"stragglers", named_},
                         {"headline", fmt::format("{} node{}, {} rank{}, exit code {}{}", store_.nodes().size(),
                                                  store_.nodes().size() == 1 ? "" : "s", store_.ranks().size(),
                                                  store_.ranks().size() == 1 ? "" : "s", exit_code,
                                                  named_.empty() ? ", no straggler"
                                                                 : fmt::format(", {} straggler{} named", named_.size(),
                                                                               named_.size() == 1 ? "" : "s"))}};
  std::string report = run_dir_ + "/report.html";
  if (auto written = posix::write_file_atomic(report, telemetry::render_report(store_, summary), 0600); !written) {
    output_.notice("cannot write the run report: " + written.error().message);
  }
  part["store"] = "telemetry.zst";
  part["report"] = "report.html";
  part["threshold"] = options_.straggler_threshold;
  part["window_s"] = options_.straggler_window_ms / 1000;
  part["stragglers"] = named_;
  part["ranks"] = live_.rank_summary();  // the last attempt's
  if (auto rate = live_.steps_per_s()) part["last_steps_per_s"] = std::round(*rate * 100) / 100;
  return part;
}

}  // namespace muster::launch
