// Stall detection: a job is stalled when no rank has made progress for `timeout_ms`. Progress is new output on
// any rank, or a rank touching its MUSTER_PROGRESS_FILE (the agent reports that; a script that prints nothing
// for long, e.g. a slow evaluation, touches the file to say it is alive). Per-rank CPU time is not progress: a
// rank stuck in an NCCL collective spins at 100 % of a core. Pure: the launcher feeds it times.
#pragma once

#include <cstdint>

namespace muster::launch {

class StallWatch {
 public:
  explicit StallWatch(int64_t timeout_ms) : timeout_ms_(timeout_ms) {}

  bool enabled() const { return timeout_ms_ > 0; }
  int64_t timeout_ms() const { return timeout_ms_; }
  // The job (or a new attempt) started, or a stall was handled: the silence is counted from `now`.
  void restart(int64_t now_ms) { last_progress_ms_ = now_ms; }
  void progress(int64_t now_ms) { last_progress_ms_ = now_ms > last_progress_ms_ ? now_ms : last_progress_ms_; }
  bool stalled(int64_t now_ms) const { return enabled() && now_ms - last_progress_ms_ >= timeout_ms_; }
  // When stalled() becomes true if nothing happens.
  int64_t deadline() const { return last_progress_ms_ + timeout_ms_; }
  int64_t silent_ms(int64_t now_ms) const { return now_ms - last_progress_ms_; }

 private:
  int64_t timeout_ms_;
  int64_t last_progress_ms_ = 0;
};

}  // namespace muster::launch
