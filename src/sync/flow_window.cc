#include "sync/flow_window.h"

#include <algorithm>

namespace muster::sync {

void FlowWindow::on_acked(uint64_t acked, int64_t now_ms) {
  if (!started_) {
    started_ = true;
    sample_start_ms_ = now_ms;
    sample_start_acked_ = acked;
    return;
  }
  int64_t elapsed = now_ms - sample_start_ms_;
  if (elapsed < kSampleMs) return;
  uint64_t bytes = acked > sample_start_acked_ ? acked - sample_start_acked_ : 0;
  rates_[next_] = bytes * 1000 / static_cast<uint64_t>(elapsed);
  next_ = (next_ + 1) % rates_.size();
  sample_start_ms_ = now_ms;
  sample_start_acked_ = acked;
  uint64_t best = *std::max_element(rates_.begin(), rates_.end());
  window_ = std::clamp(best * kTargetMs / 1000, kMin, kMax);
}

}  // namespace muster::sync
