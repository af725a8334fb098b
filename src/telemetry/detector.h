// StragglerDetector: which rank the others wait for (docs/design/telemetry.md, "Stragglers"). In synchronous
// training every rank runs at the slowest one's pace, so step times are all alike; what sets the straggler apart is
// its compute per step (step time minus the time it waited for the others, step_window.h). Each second, every
// rank's compute per step is divided by the median of the other ranks' in the same second (comparing within one
// second cancels what slows every rank at once: a loaded machine, a slow collective); a rank is named when the
// median of its ratios over the last `window` is at least 1 + `threshold`, i.e. when it computed `threshold` more
// than the others for most of the window. The median makes one long step (a checkpoint, an evaluation) count for
// nothing: a rank slowed by 20 % is named about half a window after the slowdown (~30 s with the defaults), one
// slowed by just over 10 % only once most of the window is slow. A rank needs ratios over 3/4 of the window before
// it is judged (none in the first 45 s of an attempt), and stays named until its figure falls below half the
// threshold. Ranks that stopped stepping (no figure for 10 s) are left out: a stall is the stall detector's.
// Samples reach the head at their agents' pace, so a second is judged 2 s after it ended. Assumes data
// parallelism (every rank does the same work per step); pipeline stages differ by design. Pure; unit-tested.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <vector>

namespace muster::telemetry {

struct DetectorSettings {
  double threshold = 0.10;    // 10 % above the median
  int64_t window_ms = 60'000;
};

class StragglerDetector {
 public:
  explicit StragglerDetector(DetectorSettings settings) : settings_(settings) {}

  // A rank's compute per step over an interval ending at `now_ms` (only intervals with steps).
  void add(uint32_t rank, int64_t now_ms, double compute_ms);
  // A new attempt: every rank's figures and names are forgotten.
  void reset();

  struct Standing {
    double compute_ms = 0;  // the rank's compute per step: median over the window
    double median_ms = 0;   // the other ranks' median, median over the window
    double gap = 0;         // the median of its per-second ratios to the others' median, minus 1: what is judged
    // The same over the last quarter of the window (at least 5 s): how it is now. A rank named for a large slowdown
    // has a `gap` near the threshold when it is named (half its window is slow), and a `recent_gap` of the slowdown.
    double recent_gap = 0, recent_compute_ms = 0, recent_median_ms = 0;
    bool judged = false;    // it had figures enough, and others to compare with
    bool named = false;
    int64_t named_since_ms = 0;
  };
  struct Change {
    uint32_t rank;
    bool named;  // true: newly a straggler; false: no longer
    Standing standing;
  };
  // Judges every rank at `now_ms`; returns who became a straggler and who stopped being one.
  std::vector<Change> evaluate(int64_t now_ms);

  const std::map<uint32_t, Standing>& standings() const { return standings_; }
  // The rank with the largest gap among those judged (nullopt: none judged).
  std::optional<uint32_t> slowest() const;
  const DetectorSettings& settings() const { return settings_; }

 private:
  struct Entry {
    int64_t at_ms;
    float ratio, compute_ms, others_ms;
  };
  void close_seconds(int64_t now_ms);
  DetectorSettings settings_;
  std::map<int64_t, std::map<uint32_t, std::pair<double, int>>> seconds_;  // second -> rank -> (sum, count)
  std::map<uint32_t, std::deque<Entry>> windows_;
  std::map<uint32_t, Standing> standings_;
};

// The median of `values` (the mean of the middle two for an even count; 0 for none). Reorders them.
double median(std::vector<double>& values);

}  // namespace muster::telemetry
