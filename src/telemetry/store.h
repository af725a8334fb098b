// Store: a job's telemetry over the whole run, bounded (docs/design/telemetry.md, "Storage"). The head adds every
// agent's NodeSample as it arrives (stamped with the head's clock, so nodes whose clocks disagree still share one
// time axis) and the job's events; `top` reads the latest figures elsewhere (launch/telemetry_hub.h), the report
// and `muster report` read this. A series per rank, per node and per GPU (series.h: at most kMaxPoints points
// each, resolution halving as the run grows), and at most kMaxEvents events (the oldest dropped first but the
// first attempt's start). Worst case on disk before compression, 64 nodes x 8 ranks x 8 GPUs: 512 x 1,024 x 40
// bytes (ranks) + 64 x 1,024 x 76 (nodes) + 512 x 1,024 x 44 (GPUs) = 49.0 MB, whatever the run's length;
// zstd makes it several times smaller (bench/telemetry/store_bound.sh measures it). Pure: serialize/parse.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "telemetry/samples.h"
#include "telemetry/series.h"
#include "util/result.h"

namespace muster::telemetry {

inline constexpr size_t kMaxPoints = 1024;
inline constexpr size_t kMaxEvents = 10'000;

// Column indices of the three kinds of series.
enum RankColumn : size_t { r_steps, r_step_p50_ms, r_step_p95_ms, r_compute_ms, r_wait_ms, r_cpu, r_runq, r_throttled };
enum NodeColumn : size_t {
  n_cpu_busy, n_cpu_steal, n_cpu_iowait, n_other_cpu, n_throttled, n_mem_used_gib, n_mem_total_gib, n_swap_used_gib,
  n_swap_in, n_swap_out, n_load1, n_net_rx_mbs, n_net_tx_mbs, n_disk_read_mbs, n_disk_write_mbs, n_disk_busy, n_steps
};
enum GpuColumn : size_t {
  g_util, g_mem_used_gib, g_mem_total_gib, g_power_w, g_power_limit_w, g_temp_c, g_sm_mhz, g_sm_max_mhz, g_throttle
};
std::span<const Column> rank_columns();
std::span<const Column> node_columns();
std::span<const Column> gpu_columns();

struct Event {
  int64_t unix_ms = 0;
  std::string kind;  // "start", "restart", "exclude", "stall", "straggler", "straggler-end", "failure", "end"
  std::string text;
  int rank = -1;     // the rank it names, if any
  std::string node;  // the node it names, if any
  bool operator==(const Event&) const = default;
};

class Store {
 public:
  explicit Store(int64_t start_unix_ms = 0) : start_ms_(start_unix_ms) {}

  // `node`: the sending node's name; `at_unix_ms`: when the head received it.
  void add(const std::string& node, const NodeSample& sample, int64_t at_unix_ms);
  void event(Event event);

  int64_t start_ms() const { return start_ms_; }
  const std::map<uint32_t, Series>& ranks() const { return ranks_; }
  const std::map<std::string, Series>& nodes() const { return nodes_; }
  const std::map<std::pair<std::string, uint32_t>, Series>& gpus() const { return gpus_; }
  const std::vector<Event>& events() const { return events_; }
  // Which node each rank last reported from.
  const std::map<uint32_t, std::string>& rank_nodes() const { return rank_nodes_; }

  // The whole store, zstd-compressed (the run directory's telemetry.zst), and back.
  std::string serialize() const;
  static Result<Store> parse(std::string_view bytes);

 private:
  uint32_t seconds(int64_t unix_ms) const;

  int64_t start_ms_;
  std::map<uint32_t, Series> ranks_;
  std::map<std::string, Series> nodes_;
  std::map<std::pair<std::string, uint32_t>, Series> gpus_;
  std::map<uint32_t, std::string> rank_nodes_;
  std::vector<Event> events_;
};

// A figure of a sample as a float: NaN when it was not measured; `scale` applied.
float figure(uint32_t value, double scale = 1);

}  // namespace muster::telemetry
