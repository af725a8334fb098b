// LiveView: the job as it is now, for `muster top`, the launch's status line, the Prometheus export and the causes
// of stragglers: each node's and rank's latest figures, steps/s averaged over the last few seconds, and the
// averages the causes compare (over the straggler window). Fed with every NodeSample as it arrives; answers with
// the snapshot `muster top` shows (docs/control-protocol.md, `top`). Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "telemetry/cause.h"
#include "telemetry/detector.h"
#include "telemetry/samples.h"

namespace muster::telemetry {

struct StragglerNote {  // a named straggler, as the hub keeps it
  int64_t since_unix_ms = 0;
  std::string node;
  std::string cause;
};

class LiveView {
 public:
  explicit LiveView(int64_t window_ms = 60'000) : window_ms_(window_ms) {}

  void add(const std::string& node, const NodeSample& sample, int64_t now_ms);
  void forget_ranks();  // a new attempt: ranks may be elsewhere now

  // What a cause needs to know about `rank` (telemetry/cause.h).
  CauseFacts cause_facts(uint32_t rank) const;
  std::optional<std::string> node_of(uint32_t rank) const;

  // The job's steps per second: the median over its ranks (in synchronous training they are all the same).
  std::optional<double> steps_per_s() const;

  struct Request {
    bool all_ranks = false;              // every rank's row
    std::set<std::string> expand;        // or the rows of these nodes' ranks
  };
  // One `top` refresh (docs/control-protocol.md): the job, its nodes (each with its ranks when asked), stragglers.
  nlohmann::json snapshot(const Request& request, const StragglerDetector& detector,
                          const std::map<uint32_t, StragglerNote>& stragglers, int64_t now_ms) const;

  // Every rank's step source and step count so far ({"3": {"node", "source", "steps"}}), for the manifest.
  nlohmann::json rank_summary() const;

  size_t nodes() const { return nodes_.size(); }
  size_t ranks() const { return ranks_.size(); }

 private:
  struct RankState {
    RankSample latest;
    RankSample last_stepped;  // the latest sample with steps (its step times)
    bool stepped = false;
    std::string node;
    int64_t seen_ms = 0;
    double steps_per_s = 0;  // smoothed over ~5 s
    double cpu = NAN, runq = NAN, throttled = NAN;  // smoothed over the window
  };
  struct NodeState {
    NodeSample latest;  // without its ranks
    std::vector<uint32_t> ranks;
    int64_t seen_ms = 0;
    double steal = NAN, other_cpu = NAN, swap_pages = NAN, net_mbs = NAN;
    std::map<uint32_t, std::string> cgroups;  // rank -> its own CPU cgroup (notes "cgroup R PATH")
  };
  nlohmann::json rank_row(uint32_t rank, const RankState& state, const StragglerDetector& detector,
                          const std::map<uint32_t, StragglerNote>& stragglers) const;
  nlohmann::json node_row(const std::string& name, const NodeState& node, const StragglerDetector& detector,
                          const std::map<uint32_t, StragglerNote>& stragglers, int64_t now_ms) const;

  int64_t window_ms_;
  std::map<std::string, NodeState> nodes_;
  std::map<uint32_t, RankState> ranks_;
};

}  // namespace muster::telemetry
