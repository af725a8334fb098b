// How many bytes of file data one node may have unacknowledged during `muster sync` (the head's flow control;
// docs/agent-protocol.md section 8). Pure: fed acknowledgement totals and times, it answers a byte count.
//
// A fixed window is wrong both ways: too small for a fast network, and on a slow relay chain it lets megabytes
// queue in every hop's buffers, which the last node then drains after the others have finished (16 MiB at
// 100 Mbit/s: the tail of 8 nodes finished 1.3 s after the first). So the window follows the node's measured
// acknowledgement rate: enough for kTargetMs of transfer at that rate, within [kMin, kMax]. The rate is the
// best of the last few kSampleMs samples, so one stall does not collapse the window. When the window limits
// the rate, the rate is window / round trip: the window grows while the round trip is below kTargetMs and
// shrinks above it, so queueing stays near kTargetMs.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace muster::sync {

class FlowWindow {
 public:
  static constexpr uint64_t kMin = 2u << 20;      // 8 SyncData frames: keeps a chain of 8 hops busy
  static constexpr uint64_t kMax = 64u << 20;
  static constexpr uint64_t kInitial = 8u << 20;  // until the first sample
  static constexpr int64_t kSampleMs = 100;
  static constexpr int64_t kTargetMs = 150;

  // `acked` is the node's running total of acknowledged bytes; `now_ms` a monotonic clock. Call on every ack.
  void on_acked(uint64_t acked, int64_t now_ms);
  uint64_t bytes() const { return window_; }

 private:
  bool started_ = false;
  int64_t sample_start_ms_ = 0;
  uint64_t sample_start_acked_ = 0;
  std::array<uint64_t, 4> rates_{};  // bytes per second of the last samples, newest at next_ - 1
  size_t next_ = 0;
  uint64_t window_ = kInitial;
};

}  // namespace muster::sync
