// FirstStepWatch: whether an attempt's ranks reached their first training step, from the ranks' telemetry samples
// (telemetry/samples.h). Known only where steps are counted: a rank whose hook saw an optimizer made
// (kRankStepsCounted) or that stepped, or every rank when the user gave --step-pattern. Where nothing is counted
// (a shell script, telemetry off, MUSTER_STEP_TIMING=0) it stays unknown, and the restart policy does not use it.
// Pure.
#pragma once

#include <map>
#include <vector>

#include "telemetry/samples.h"

namespace muster::launch {

enum class FirstStep {
  unknown,      // no rank of the attempt is known to count its steps
  not_reached,  // steps are counted and no rank has made one
  reached,      // some rank of the attempt made a step
};

class FirstStepWatch {
 public:
  // `counted_from_start`: every rank's steps are counted from its start (--step-pattern).
  explicit FirstStepWatch(bool counted_from_start) : counted_from_start_(counted_from_start) {}

  // A frame's samples of attempt `attempt`'s ranks (one lookup per frame: thousands of ranks a second at scale).
  void add(int attempt, const std::vector<telemetry::RankSample>& ranks);
  FirstStep of(int attempt) const;

 private:
  struct Seen {
    bool counted = false, stepped = false;
  };
  bool counted_from_start_;
  std::map<int, Seen> attempts_;
};

}  // namespace muster::launch
