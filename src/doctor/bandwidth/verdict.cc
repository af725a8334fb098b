#include "doctor/bandwidth/verdict.h"

#include <algorithm>

namespace muster::doctor {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::vector<double> best_per_node(const BandwidthResult& result, size_t nodes) {
  std::vector<double> best(nodes, -1);
  for (size_t k = 0; k < result.links.size(); ++k) {
    if (!result.samples[k].ok) continue;
    for (size_t node : {result.links[k].from, result.links[k].to}) {
      best[node] = std::max(best[node], result.samples[k].mbps);
    }
  }
  return best;
}

BandwidthVerdict judge_bandwidth(const BandwidthResult& result, size_t nodes) {
  BandwidthVerdict verdict;
  verdict.slow.assign(result.links.size(), false);
  std::vector<double> best = best_per_node(result, nodes);
  std::vector<double> measured;
  for (double value : best) {
    if (value >= 0) measured.push_back(value);
  }
  verdict.reference_mbps = median(measured);
  for (size_t k = 0; k < result.links.size(); ++k) {
    verdict.slow[k] = result.samples[k].ok && result.samples[k].mbps < kSlowLinkFraction * verdict.reference_mbps;
  }
  for (size_t node = 0; node < nodes; ++node) {
    bool any = false, all_slow = true;
    for (size_t k = 0; k < result.links.size(); ++k) {
      if (!result.samples[k].ok || !touches(result.links[k], node)) continue;
      any = true;
      all_slow = all_slow && verdict.slow[k];
    }
    if (any && all_slow) verdict.slow_nodes.push_back(node);
  }
  return verdict;
}

}  // namespace muster::doctor
