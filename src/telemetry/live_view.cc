#include "telemetry/live_view.h"

#include <algorithm>
#include <cmath>

#include "telemetry/store.h"

namespace muster::telemetry {
namespace {

constexpr double kStepsSmoothing = 0.4;  // steps/s: an exponential average over ~5 samples

nlohmann::json num(double value, int decimals = 2) {
  if (std::isnan(value) || std::isinf(value)) return nullptr;
  double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

double smooth(double old, double value, double alpha) {
  if (std::isnan(value)) return old;
  return std::isnan(old) ? value : old + alpha * (value - old);
}

double ms(uint32_t us) { return us == kNone ? NAN : us / 1000.0; }

double mib_gib(uint32_t mib) { return mib == kNone ? NAN : mib / 1024.0; }

}  // namespace

void LiveView::add(const std::string& node, const NodeSample& sample, int64_t now_ms) {
  double interval_s = std::max<uint32_t>(sample.interval_ms, 1) / 1000.0;
  double alpha = std::min(1.0, interval_s * 1000 / static_cast<double>(std::max<int64_t>(window_ms_, 1000)));
  NodeState& state = nodes_[node];
  state.latest.unix_ms = sample.unix_ms;
  state.latest.interval_ms = sample.interval_ms;
  state.latest.node = sample.node;
  state.latest.gpus = sample.gpus;
  state.latest.notes = sample.notes;
  state.seen_ms = now_ms;
  const NodeFigures& n = sample.node;
  state.steal = smooth(state.steal, figure(n.cpu_steal_permille, 0.1), alpha);
  state.other_cpu = smooth(state.other_cpu, figure(n.other_cpu_permille, 0.1), alpha);
  if (n.swap_in_pages != kNone && n.swap_out_pages != kNone) {
    state.swap_pages = smooth(state.swap_pages, static_cast<double>(n.swap_in_pages) + n.swap_out_pages, alpha);
  }
  if (n.net_rx_kib != kNone && n.net_tx_kib != kNone) {
    state.net_mbs = smooth(state.net_mbs, (static_cast<double>(n.net_rx_kib) + n.net_tx_kib) * 1.024 / 1000, alpha);
  }
  for (const auto& note : sample.notes) {  // "cgroup <rank> <path>"
    if (!note.starts_with("cgroup ")) continue;
    size_t space = note.find(' ', 7);
    if (space == std::string::npos) continue;
    state.cgroups[static_cast<uint32_t>(std::strtoul(note.c_str() + 7, nullptr, 10))] = note.substr(space + 1);
  }
  state.ranks.clear();
  for (const auto& r : sample.ranks) {
    state.ranks.push_back(r.rank);
    RankState& rank = ranks_[r.rank];
    rank.latest = r;
    if (r.steps > 0) {
      rank.last_stepped = r;
      rank.stepped = true;
    }
    rank.node = node;
    rank.seen_ms = now_ms;
    rank.steps_per_s = smooth(rank.steps_per_s, r.steps / interval_s, kStepsSmoothing);
    rank.cpu = smooth(rank.cpu, figure(r.cpu_permille, 0.1), alpha);
    rank.runq = smooth(rank.runq, figure(r.runq_permille, 0.1), alpha);
    rank.throttled = smooth(rank.throttled, figure(r.throttled_permille, 0.1), alpha);
  }
}

void LiveView::forget_ranks() {
  ranks_.clear();
  for (auto& [name, node] : nodes_) {
    node.ranks.clear();
    node.cgroups.clear();
  }
}

std::optional<std::string> LiveView::node_of(uint32_t rank) const {
  auto it = ranks_.find(rank);
  if (it == ranks_.end()) return std::nullopt;
  return it->second.node;
}

std::optional<double> LiveView::steps_per_s() const {
  std::vector<double> rates;
  for (const auto& [rank, state] : ranks_) {
    if (state.stepped) rates.push_back(state.steps_per_s);
  }
  if (rates.empty()) return std::nullopt;
  return median(rates);
}

nlohmann::json LiveView::rank_summary() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [rank, state] : ranks_) {
    out[std::to_string(rank)] = {{"node", state.node},
                                 {"source", step_source_name(static_cast<StepSource>(state.latest.source))},
                                 {"steps", state.latest.total_steps}};
  }
  return out;
}

CauseFacts LiveView::cause_facts(uint32_t rank) const {
  CauseFacts facts;
  auto it = ranks_.find(rank);
  if (it == ranks_.end()) return facts;
  const RankState& r = it->second;
  facts.rank_cpu = r.cpu;
  facts.rank_runq = r.runq;
  facts.rank_throttled = r.throttled;
  facts.rank_quota = figure(r.latest.quota_permille, 0.001);
  facts.own_cgroup = (r.latest.flags & kRankOwnCgroup) != 0;
  std::vector<double> runq, cpu, net, sm;
  for (const auto& [other, state] : ranks_) {
    if (other == rank) continue;
    if (!std::isnan(state.runq)) runq.push_back(state.runq);
    if (!std::isnan(state.cpu)) cpu.push_back(state.cpu);
  }
  facts.median_runq = runq.empty() ? NAN : median(runq);
  facts.median_cpu = cpu.empty() ? NAN : median(cpu);
  for (const auto& [name, node] : nodes_) {
    if (name == r.node) {
      facts.node_steal = node.steal;
      facts.node_other_cpu = node.other_cpu;
      facts.node_swap_pages = node.swap_pages;
      facts.node_net_mbs = node.net_mbs;
      if (auto cg = node.cgroups.find(rank); cg != node.cgroups.end()) facts.cgroup = cg->second;
      for (const auto& gpu : node.latest.gpus) {
        if (gpu.index == r.latest.gpu) facts.gpu = gpu;
      }
    } else if (!std::isnan(node.net_mbs)) {
      net.push_back(node.net_mbs);
    }
    for (const auto& gpu : node.latest.gpus) {
      if (gpu.sm_mhz != kNone && !(name == r.node && gpu.index == r.latest.gpu)) sm.push_back(gpu.sm_mhz);
    }
  }
  facts.median_net_mbs = net.empty() ? NAN : median(net);
  facts.median_gpu_sm_mhz = sm.empty() ? NAN : median(sm);
  return facts;
}

nlohmann::json LiveView::rank_row(uint32_t rank, const RankState& s, const StragglerDetector& detector,
                                  const std::map<uint32_t, StragglerNote>& stragglers) const {
  const RankSample& t = s.last_stepped;
  double compute = s.stepped ? ms(t.compute_us) : NAN;
  double wait = s.stepped ? ms(t.wait_us) : NAN;
  nlohmann::json row{{"rank", rank},
                     {"node", s.node},
                     {"source", step_source_name(static_cast<StepSource>(s.latest.source))},
                     {"steps", s.latest.total_steps},
                     {"steps_per_s", num(s.stepped ? s.steps_per_s : NAN)},
                     {"step_p50_ms", num(s.stepped ? ms(t.step_p50_us ? t.step_p50_us : t.step_mean_us) : NAN, 1)},
                     {"step_p95_ms", num(s.stepped && t.step_p95_us ? ms(t.step_p95_us) : NAN, 1)},
                     {"compute_ms", num(compute, 1)},
                     {"wait_ms", num(wait, 1)},
                     {"compute_share", num(std::isnan(wait) ? NAN : compute / std::max(compute + wait, 1e-9), 3)},
                     {"cpu", num(figure(s.latest.cpu_permille, 0.1), 0)},
                     {"runq", num(figure(s.latest.runq_permille, 0.1), 0)},
                     {"throttled", num(figure(s.latest.throttled_permille, 0.1), 0)},
                     {"rss_gib", num(mib_gib(s.latest.rss_mib))},
                     {"pid", s.latest.pid}};
  if (s.latest.gpu != kNone) row["gpu"] = s.latest.gpu;
  auto standing = detector.standings().find(rank);
  row["gap"] = standing != detector.standings().end() && standing->second.judged ? num(standing->second.gap, 3)
                                                                                   : nlohmann::json(nullptr);
  auto straggler = stragglers.find(rank);
  row["straggler"] = straggler != stragglers.end();
  if (straggler != stragglers.end()) row["cause"] = straggler->second.cause;
  return row;
}

nlohmann::json LiveView::node_row(const std::string& name, const NodeState& n, const StragglerDetector& detector,
                                  const std::map<uint32_t, StragglerNote>& stragglers, int64_t now_ms) const {
  const NodeFigures& f = n.latest.node;
  nlohmann::json row{{"node", name},
                     {"ranks", n.ranks},
                     {"age_s", num((now_ms - n.seen_ms) / 1000.0, 1)},
                     {"cpus", f.cpus},
                     {"cpu", num(figure(f.cpu_busy_permille, 0.1), 0)},
                     {"steal", num(figure(f.cpu_steal_permille, 0.1), 0)},
                     {"iowait", num(figure(f.cpu_iowait_permille, 0.1), 0)},
                     {"other_cpu", num(figure(f.other_cpu_permille, 0.1), 0)},
                     {"throttled", num(figure(f.throttled_permille, 0.1), 0)},
                     {"mem_used_gib", num(f.mem_total_mib == kNone || f.mem_available_mib == kNone
                                              ? NAN
                                              : (f.mem_total_mib - std::min(f.mem_total_mib, f.mem_available_mib)) / 1024.0)},
                     {"mem_total_gib", num(mib_gib(f.mem_total_mib))},
                     {"swap_used_gib", num(f.swap_total_mib == kNone || f.swap_free_mib == kNone
                                               ? NAN
                                               : (f.swap_total_mib - std::min(f.swap_total_mib, f.swap_free_mib)) / 1024.0)},
                     {"swap_pages_s", num(f.swap_in_pages == kNone ? NAN : double(f.swap_in_pages) + f.swap_out_pages, 0)},
                     {"load1", num(figure(f.load1_centi, 0.01))},
                     {"net_rx_mbs", num(figure(f.net_rx_kib, 1.024 / 1000))},
                     {"net_tx_mbs", num(figure(f.net_tx_kib, 1.024 / 1000))},
                     {"disk_read_mbs", num(figure(f.disk_read_kib, 1.024 / 1000))},
                     {"disk_write_mbs", num(figure(f.disk_write_kib, 1.024 / 1000))},
                     {"disk_busy", num(figure(f.disk_busy_permille, 0.1), 0)}};
  std::vector<double> util, temp, power, sm;
  double mem = 0;
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : n.latest.gpus) {
    if (g.util_pct != kNone) util.push_back(g.util_pct);
    if (g.temp_c != kNone) temp.push_back(g.temp_c);
    if (g.power_dw != kNone) power.push_back(g.power_dw / 10.0);
    if (g.sm_mhz != kNone) sm.push_back(g.sm_mhz);
    if (g.mem_used_mib != kNone) mem += g.mem_used_mib / 1024.0;
    gpus.push_back({{"index", g.index},
                    {"util", num(figure(g.util_pct), 0)},
                    {"mem_used_gib", num(mib_gib(g.mem_used_mib))},
                    {"mem_total_gib", num(mib_gib(g.mem_total_mib))},
                    {"power_w", num(figure(g.power_dw, 0.1), 0)},
                    {"power_limit_w", num(figure(g.power_limit_dw, 0.1), 0)},
                    {"temp_c", num(figure(g.temp_c), 0)},
                    {"sm_mhz", num(figure(g.sm_mhz), 0)},
                    {"sm_max_mhz", num(figure(g.sm_max_mhz), 0)},
                    {"throttle", throttle_reasons_text(g.throttle & kThrottleTrouble)},
                    {"ecc_uncorrected", num(figure(g.ecc_uncorrected), 0)},
                    {"other_processes", g.other_processes},
                    {"xid", g.xid}});
  }
  auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return v.empty() ? NAN : sum / static_cast<double>(v.size());
  };
  row["gpu_util"] = num(mean(util), 0);
  row["gpu_mem_used_gib"] = num(n.latest.gpus.empty() ? NAN : mem);
  row["gpu_power_w"] = num(mean(power), 0);
  row["gpu_temp_c"] = num(temp.empty() ? NAN : *std::max_element(temp.begin(), temp.end()), 0);
  row["gpu_sm_mhz"] = num(sm.empty() ? NAN : *std::min_element(sm.begin(), sm.end()), 0);
  row["gpus"] = std::move(gpus);
  // The node's ranks, summed up: the slowest rank's figures.
  std::vector<double> rates;
  double p50 = NAN, p95 = NAN, compute = NAN, wait = NAN, gap = NAN;
  bool straggler = false;
  for (uint32_t rank : n.ranks) {
    auto it = ranks_.find(rank);
    if (it == ranks_.end() || !it->second.stepped) continue;
    const RankSample& t = it->second.last_stepped;
    rates.push_back(it->second.steps_per_s);
    p50 = std::fmax(p50, ms(t.step_p50_us ? t.step_p50_us : t.step_mean_us));
    if (t.step_p95_us) p95 = std::fmax(p95, ms(t.step_p95_us));
    compute = std::fmax(compute, ms(t.compute_us));
    wait = std::isnan(wait) ? ms(t.wait_us) : std::fmin(wait, ms(t.wait_us));
    auto standing = detector.standings().find(rank);
    if (standing != detector.standings().end() && standing->second.judged) gap = std::fmax(gap, standing->second.gap);
    straggler = straggler || stragglers.contains(rank);
  }
  row["steps_per_s"] = num(rates.empty() ? NAN : median(rates));
  row["step_p50_ms"] = num(p50, 1);
  row["step_p95_ms"] = num(p95, 1);
  row["compute_ms"] = num(compute, 1);
  row["wait_ms"] = num(wait, 1);
  row["compute_share"] = num(std::isnan(wait) || std::isnan(compute) ? NAN : compute / std::max(compute + wait, 1e-9), 3);
  row["gap"] = num(gap, 3);
  row["straggler"] = straggler;
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& note : n.latest.notes) {
    if (!note.starts_with("cgroup ")) notes.push_back(note);
  }
  row["notes"] = std::move(notes);
  return row;
}

nlohmann::json LiveView::snapshot(const Request& request, const StragglerDetector& detector,
                                  const std::map<uint32_t, StragglerNote>& stragglers, int64_t now_ms) const {
  nlohmann::json out;
  out["steps_per_s"] = num(steps_per_s().value_or(NAN));
  if (auto worst = detector.slowest()) {
    const auto& standing = detector.standings().at(*worst);
    out["slowest"] = {{"rank", *worst}, {"node", node_of(*worst).value_or("")}, {"gap", num(standing.gap, 3)},
                      {"compute_ms", num(standing.compute_ms, 1)}, {"median_ms", num(standing.median_ms, 1)}};
  } else {
    out["slowest"] = nullptr;
  }
  nlohmann::json named = nlohmann::json::array();
  for (const auto& [rank, note] : stragglers) {
    auto standing = detector.standings().find(rank);
    nlohmann::json entry{{"rank", rank}, {"node", note.node}, {"since_unix_ms", note.since_unix_ms},
                         {"cause", note.cause}};
    if (standing != detector.standings().end()) {  // as it is now; window_gap: what was judged
      entry["gap"] = num(standing->second.recent_gap, 3);
      entry["window_gap"] = num(standing->second.gap, 3);
      entry["compute_ms"] = num(standing->second.recent_compute_ms, 1);
      entry["median_ms"] = num(standing->second.recent_median_ms, 1);
    }
    named.push_back(std::move(entry));
  }
  out["stragglers"] = std::move(named);
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& [name, node] : nodes_) {
    nlohmann::json row = node_row(name, node, detector, stragglers, now_ms);
    if (request.all_ranks || request.expand.contains(name)) {
      nlohmann::json ranks = nlohmann::json::array();
      for (uint32_t rank : node.ranks) {
        if (auto it = ranks_.find(rank); it != ranks_.end()) ranks.push_back(rank_row(rank, it->second, detector, stragglers));
      }
      row["rank_rows"] = std::move(ranks);
    }
    nodes.push_back(std::move(row));
  }
  out["nodes"] = std::move(nodes);
  out["ranks"] = ranks_.size();
  return out;
}

}  // namespace muster::telemetry
