#include "telemetry/store.h"

#include <cmath>
#include <cstring>

#include <zstd.h>

namespace muster::telemetry {
namespace {

constexpr std::string_view kMagic = "MTELE001";

constexpr Column kRankColumns[] = {
    {"steps", Merge::sum},       {"step_p50_ms", Merge::mean}, {"step_p95_ms", Merge::max}, {"compute_ms", Merge::mean},
    {"wait_ms", Merge::mean},    {"cpu", Merge::mean},         {"runq", Merge::mean},       {"throttled", Merge::mean},
};
constexpr Column kNodeColumns[] = {
    {"cpu_busy", Merge::mean},     {"cpu_steal", Merge::mean},      {"cpu_iowait", Merge::mean},
    {"other_cpu", Merge::mean},    {"throttled", Merge::mean},      {"mem_used_gib", Merge::mean},
    {"mem_total_gib", Merge::max}, {"swap_used_gib", Merge::mean},  {"swap_in", Merge::mean},
    {"swap_out", Merge::mean},     {"load1", Merge::mean},          {"net_rx_mbs", Merge::mean},
    {"net_tx_mbs", Merge::mean},   {"disk_read_mbs", Merge::mean},  {"disk_write_mbs", Merge::mean},
    {"disk_busy", Merge::mean},    {"steps", Merge::sum},
};
constexpr Column kGpuColumns[] = {
    {"util", Merge::mean},          {"mem_used_gib", Merge::mean}, {"mem_total_gib", Merge::max},
    {"power_w", Merge::mean},       {"power_limit_w", Merge::max}, {"temp_c", Merge::max},
    {"sm_mhz", Merge::mean},        {"sm_max_mhz", Merge::max},    {"throttle", Merge::max},
};
static_assert(std::size(kRankColumns) == r_throttled + 1);
static_assert(std::size(kNodeColumns) == n_steps + 1);
static_assert(std::size(kGpuColumns) == g_throttle + 1);

template <typename T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}
void put_str(std::string& out, std::string_view text) {
  put<uint32_t>(out, static_cast<uint32_t>(text.size()));
  out.append(text);
}

struct Reader {
  std::string_view in;
  size_t at = 0;
  bool ok = true;
  template <typename T>
  T get() {
    T value{};
    if (!ok || at > in.size() || in.size() - at < sizeof(T)) {
      ok = false;
      return value;
    }
    std::memcpy(&value, in.data() + at, sizeof(T));
    at += sizeof(T);
    return value;
  }
  std::string str() {
    uint32_t size = get<uint32_t>();
    if (!ok || in.size() - at < size) {
      ok = false;
      return {};
    }
    std::string text(in.substr(at, size));
    at += size;
    return text;
  }
};

float mib_to_gib(uint32_t mib) { return figure(mib, 1.0 / 1024); }

std::vector<float> node_values(const NodeSample& s) {
  const NodeFigures& n = s.node;
  std::vector<float> v(std::size(kNodeColumns), std::nanf(""));
  v[n_cpu_busy] = figure(n.cpu_busy_permille, 0.1);
  v[n_cpu_steal] = figure(n.cpu_steal_permille, 0.1);
  v[n_cpu_iowait] = figure(n.cpu_iowait_permille, 0.1);
  v[n_other_cpu] = figure(n.other_cpu_permille, 0.1);
  v[n_throttled] = figure(n.throttled_permille, 0.1);
  if (n.mem_total_mib != kNone && n.mem_available_mib != kNone) {
    v[n_mem_used_gib] = static_cast<float>(n.mem_total_mib - std::min(n.mem_total_mib, n.mem_available_mib)) / 1024;
  }
  v[n_mem_total_gib] = mib_to_gib(n.mem_total_mib);
  if (n.swap_total_mib != kNone && n.swap_free_mib != kNone) {
    v[n_swap_used_gib] = static_cast<float>(n.swap_total_mib - std::min(n.swap_total_mib, n.swap_free_mib)) / 1024;
  }
  v[n_swap_in] = figure(n.swap_in_pages);
  v[n_swap_out] = figure(n.swap_out_pages);
  v[n_load1] = figure(n.load1_centi, 0.01);
  v[n_net_rx_mbs] = figure(n.net_rx_kib, 1.024 / 1000);
  v[n_net_tx_mbs] = figure(n.net_tx_kib, 1.024 / 1000);
  v[n_disk_read_mbs] = figure(n.disk_read_kib, 1.024 / 1000);
  v[n_disk_write_mbs] = figure(n.disk_write_kib, 1.024 / 1000);
  v[n_disk_busy] = figure(n.disk_busy_permille, 0.1);
  float steps = 0;
  for (const auto& rank : s.ranks) steps += static_cast<float>(rank.steps);
  v[n_steps] = s.ranks.empty() ? std::nanf("") : steps;
  return v;
}

std::vector<float> rank_values(const RankSample& r) {
  std::vector<float> v(std::size(kRankColumns), std::nanf(""));
  v[r_steps] = static_cast<float>(r.steps);
  if (r.steps > 0 && r.step_p50_us > 0) v[r_step_p50_ms] = figure(r.step_p50_us, 1e-3);
  if (r.steps > 0 && r.step_p95_us > 0) v[r_step_p95_ms] = figure(r.step_p95_us, 1e-3);
  if (r.steps > 0 && r.step_p50_us == 0) v[r_step_p50_ms] = figure(r.step_mean_us, 1e-3);
  if (r.steps > 0) v[r_compute_ms] = figure(r.compute_us, 1e-3);
  if (r.steps > 0) v[r_wait_ms] = figure(r.wait_us, 1e-3);
  v[r_cpu] = figure(r.cpu_permille, 0.1);
  v[r_runq] = figure(r.runq_permille, 0.1);
  v[r_throttled] = figure(r.throttled_permille, 0.1);
  return v;
}

std::vector<float> gpu_values(const GpuSample& g) {
  std::vector<float> v(std::size(kGpuColumns), std::nanf(""));
  v[g_util] = figure(g.util_pct);
  v[g_mem_used_gib] = mib_to_gib(g.mem_used_mib);
  v[g_mem_total_gib] = mib_to_gib(g.mem_total_mib);
  v[g_power_w] = figure(g.power_dw, 0.1);
  v[g_power_limit_w] = figure(g.power_limit_dw, 0.1);
  v[g_temp_c] = figure(g.temp_c);
  v[g_sm_mhz] = figure(g.sm_mhz);
  v[g_sm_max_mhz] = figure(g.sm_max_mhz);
  v[g_throttle] = static_cast<float>(g.throttle & kThrottleTrouble);
  return v;
}

}  // namespace

std::span<const Column> rank_columns() { return kRankColumns; }
std::span<const Column> node_columns() { return kNodeColumns; }
std::span<const Column> gpu_columns() { return kGpuColumns; }

float figure(uint32_t value, double scale) {
  if (value == kNone) return std::nanf("");
  return static_cast<float>(value * scale);
}

uint32_t Store::seconds(int64_t unix_ms) const {
  return unix_ms <= start_ms_ ? 0 : static_cast<uint32_t>((unix_ms - start_ms_) / 1000);
}

void Store::add(const std::string& node, const NodeSample& sample, int64_t at_unix_ms) {
  if (start_ms_ == 0) start_ms_ = at_unix_ms;
  uint32_t t = seconds(at_unix_ms);
  nodes_.try_emplace(node, kNodeColumns, kMaxPoints).first->second.add(t, node_values(sample));
  for (const auto& gpu : sample.gpus) {
    gpus_.try_emplace({node, gpu.index}, kGpuColumns, kMaxPoints).first->second.add(t, gpu_values(gpu));
  }
  for (const auto& rank : sample.ranks) {
    ranks_.try_emplace(rank.rank, kRankColumns, kMaxPoints).first->second.add(t, rank_values(rank));
    rank_nodes_[rank.rank] = node;
  }
}

void Store::event(Event event) {
  if (start_ms_ == 0) start_ms_ = event.unix_ms;
  if (events_.size() >= kMaxEvents) events_.erase(events_.begin() + 1);  // the job's start stays
  events_.push_back(std::move(event));
}

std::string Store::serialize() const {
  std::string raw(kMagic);
  put<int64_t>(raw, start_ms_);
  put<uint32_t>(raw, std::size(kRankColumns));
  put<uint32_t>(raw, std::size(kNodeColumns));
  put<uint32_t>(raw, std::size(kGpuColumns));
  put<uint32_t>(raw, static_cast<uint32_t>(ranks_.size()));
  for (const auto& [rank, series] : ranks_) {
    put<uint32_t>(raw, rank);
    auto node = rank_nodes_.find(rank);
    put_str(raw, node == rank_nodes_.end() ? "" : node->second);
    series.append_to(raw);
  }
  put<uint32_t>(raw, static_cast<uint32_t>(nodes_.size()));
  for (const auto& [name, series] : nodes_) {
    put_str(raw, name);
    series.append_to(raw);
  }
  put<uint32_t>(raw, static_cast<uint32_t>(gpus_.size()));
  for (const auto& [key, series] : gpus_) {
    put_str(raw, key.first);
    put<uint32_t>(raw, key.second);
    series.append_to(raw);
  }
  put<uint32_t>(raw, static_cast<uint32_t>(events_.size()));
  for (const auto& event : events_) {
    put<int64_t>(raw, event.unix_ms);
    put_str(raw, event.kind);
    put_str(raw, event.text);
    put<int32_t>(raw, event.rank);
    put_str(raw, event.node);
  }
  std::string packed(ZSTD_compressBound(raw.size()), '\0');
  size_t size = ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), 3);
  if (ZSTD_isError(size)) return raw;  // cannot happen with a bound-sized buffer; the raw form parses too
  packed.resize(size);
  return packed;
}

Result<Store> Store::parse(std::string_view bytes) {
  std::string raw;
  if (!bytes.starts_with(kMagic)) {
    unsigned long long size = ZSTD_getFrameContentSize(bytes.data(), bytes.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1ull << 31)) {
      return make_error(ErrorKind::parse, "not a muster telemetry file");
    }
    raw.resize(size);
    size_t got = ZSTD_decompress(raw.data(), raw.size(), bytes.data(), bytes.size());
    if (ZSTD_isError(got) || got != size) return make_error(ErrorKind::parse, "a damaged telemetry file");
    bytes = raw;
  }
  if (!bytes.starts_with(kMagic)) return make_error(ErrorKind::parse, "not a muster telemetry file");
  Reader r{bytes, kMagic.size()};
  Store store(r.get<int64_t>());
  uint32_t rw = r.get<uint32_t>(), nw = r.get<uint32_t>(), gw = r.get<uint32_t>();
  if (rw != std::size(kRankColumns) || nw != std::size(kNodeColumns) || gw != std::size(kGpuColumns)) {
    return make_error(ErrorKind::parse, "a telemetry file of another muster version");
  }
  auto read_series = [&](Series& series) {
    if (r.ok && !series.read_from(r.in, r.at)) r.ok = false;
  };
  for (uint32_t i = 0, n = r.get<uint32_t>(); r.ok && i < n; ++i) {
    uint32_t rank = r.get<uint32_t>();
    std::string node = r.str();
    Series series(kRankColumns, kMaxPoints);
    read_series(series);
    store.ranks_.emplace(rank, std::move(series));
    if (!node.empty()) store.rank_nodes_[rank] = node;
  }
  for (uint32_t i = 0, n = r.get<uint32_t>(); r.ok && i < n; ++i) {
    std::string name = r.str();
    Series series(kNodeColumns, kMaxPoints);
    read_series(series);
    store.nodes_.emplace(std::move(name), std::move(series));
  }
  for (uint32_t i = 0, n = r.get<uint32_t>(); r.ok && i < n; ++i) {
    std::string node = r.str();
    uint32_t index = r.get<uint32_t>();
    Series series(kGpuColumns, kMaxPoints);
    read_series(series);
    store.gpus_.emplace(std::make_pair(std::move(node), index), std::move(series));
  }
  for (uint32_t i = 0, n = r.get<uint32_t>(); r.ok && i < n; ++i) {
    Event event;
    event.unix_ms = r.get<int64_t>();
    event.kind = r.str();
    event.text = r.str();
    event.rank = r.get<int32_t>();
    event.node = r.str();
    store.events_.push_back(std::move(event));
  }
  if (!r.ok) return make_error(ErrorKind::parse, "a truncated telemetry file");
  return store;
}

}  // namespace muster::telemetry
