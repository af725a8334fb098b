#include "launch/first_step.h"

namespace muster::launch {

void FirstStepWatch::add(int attempt, const std::vector<telemetry::RankSample>& ranks) {
  if (ranks.empty()) return;
  Seen& seen = attempts_[attempt];
  for (const auto& rank : ranks) {
    if (rank.flags & telemetry::kRankStepsCounted) seen.counted = true;
    if (rank.source != 0 && (rank.steps > 0 || rank.total_steps > 0)) seen.counted = seen.stepped = true;
  }
}

FirstStep FirstStepWatch::of(int attempt) const {
  auto it = attempts_.find(attempt);
  Seen seen = it == attempts_.end() ? Seen{} : it->second;
  if (seen.stepped) return FirstStep::reached;
  return seen.counted || counted_from_start_ ? FirstStep::not_reached : FirstStep::unknown;
}

}  // namespace muster::launch
