#include "telemetry/step_window.h"

#include <algorithm>
#include <cmath>

namespace muster::telemetry {

uint32_t quantile(std::vector<uint32_t>& values, double q) {
  if (values.empty()) return 0;
  size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  k = std::clamp<size_t>(k, 1, values.size()) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

void StepWindow::step(uint32_t step_us, uint32_t wait_us) {
  times_.push_back(step_us);
  if (wait_us != kNone) {
    wait_sum_ += std::min(wait_us, step_us);
    ++waits_;
  }
}

void StepWindow::count(uint32_t steps) { counted_ += steps; }

void StepWindow::mark(int64_t at_ms, std::optional<uint32_t> wait_us) {
  if (last_mark_ms_ && at_ms >= *last_mark_ms_) {
    step(static_cast<uint32_t>(std::min<int64_t>((at_ms - *last_mark_ms_) * 1000, kNone - 1)),
         wait_us ? *wait_us : kNone);
  } else {
    ++counted_;  // the first mark ends a step whose start is unknown
  }
  last_mark_ms_ = at_ms;
}

void StepWindow::close(uint32_t interval_ms, RankSample& sample) {
  uint32_t steps = static_cast<uint32_t>(times_.size()) + counted_;
  sample.steps = steps;
  sample.step_p50_us = sample.step_p95_us = sample.step_mean_us = sample.compute_us = 0;
  sample.wait_us = kNone;
  if (!times_.empty()) {
    uint64_t sum = 0;
    for (uint32_t t : times_) sum += t;
    sample.step_mean_us = static_cast<uint32_t>(sum / times_.size());
    sample.step_p50_us = quantile(times_, 0.5);
    sample.step_p95_us = quantile(times_, 0.95);
    if (waits_ == times_.size()) {
      sample.wait_us = static_cast<uint32_t>(wait_sum_ / waits_);
      sample.compute_us = sample.step_mean_us - std::min(sample.step_mean_us, sample.wait_us);
    } else {
      sample.compute_us = sample.step_mean_us;  // no wait measured: all of it counts as the rank's own
    }
  } else if (steps > 0) {
    sample.step_mean_us = static_cast<uint32_t>(uint64_t{interval_ms} * 1000 / steps);
    sample.compute_us = sample.step_mean_us;
  }
  times_.clear();
  wait_sum_ = 0;
  waits_ = 0;
  counted_ = 0;
}

}  // namespace muster::telemetry
