// One rank's steps over one sampling interval, reduced to the figures a RankSample carries (samples.h). Fed with
// whatever its best source gives: per-step times (the hook's ring, marker lines with their arrival times) or a
// count alone (a pattern, tqdm). Pure.
//
// What the figures mean (docs/design/telemetry.md):
//   step time  the time between the ends of two consecutive steps (the hook: two optimizer steps)
//   wait       the part of it the rank was blocked on the other ranks: in torch.distributed's collectives called
//              from Python, and in DDP's gradient all-reduce that was not hidden behind the backward pass
//   compute    step time minus wait: the rank's own work, the figure stragglers are judged by
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "telemetry/samples.h"

namespace muster::telemetry {

class StepWindow {
 public:
  // A step with its own times (wait_us: kNone when the source does not measure it).
  void step(uint32_t step_us, uint32_t wait_us);
  // `count` steps whose times are not known (tqdm, a pattern).
  void count(uint32_t steps);
  // A step marked at `at_ms` (marker lines, pattern matches): its time is the gap since the previous mark.
  void mark(int64_t at_ms, std::optional<uint32_t> wait_us);

  // The interval's figures into `sample` (steps, p50, p95, mean, compute, wait; total_steps is the caller's), for
  // an interval of `interval_ms`; then starts the next interval.
  void close(uint32_t interval_ms, RankSample& sample);
  bool empty() const { return times_.empty() && counted_ == 0; }

 private:
  std::vector<uint32_t> times_;
  uint64_t wait_sum_ = 0;
  uint32_t waits_ = 0;  // steps with a measured wait
  uint32_t counted_ = 0;
  std::optional<int64_t> last_mark_ms_;
};

// The q-quantile (0..1) of `values` (nearest rank; reorders them). 0 for none.
uint32_t quantile(std::vector<uint32_t>& values, double q);

}  // namespace muster::telemetry
