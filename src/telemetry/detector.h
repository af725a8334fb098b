// StragglerDetector: which rank the others wait for (docs/design/telemetry.md, "Stragglers"). In synchronous
// training every rank runs at the slowest one's pace, so step times are all alike; what sets the straggler apart is
// its compute per step (step time minus the time it waited for the others, step_window.h). A rank is named when
// its compute per step — the median of its per-second figures over the last `window` — is at least `threshold`
// above the median of the other ranks' figures. The median over the window makes one long step (a checkpoint, an
// evaluation) count for nothing, and makes a slowdown count once it covers half the window: a rank slowed by 20 %
// is named ~30 s after the slowdown with the defaults, one slowed by just over 10 % only once most of the window
// is slow. A rank needs figures over 3/4 of the window before it is judged (none at the start of an attempt), and
// stays named until its figure falls below half the threshold. Ranks that stopped stepping (no figure for 10 s)
// are left out: a stall is the stall detector's. Assumes data parallelism (every rank does the same work per
// step); pipeline stages differ by design. Pure; unit-tested on recorded series.
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
    double compute_ms = 0;  // the rank's figure: median over the window
    double median_ms = 0;   // the other ranks' median figure
    double gap = 0;         // compute_ms / median_ms - 1
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
    float compute_ms;
  };
  DetectorSettings settings_;
  std::map<uint32_t, std::deque<Entry>> windows_;
  std::map<uint32_t, Standing> standings_;
};

// The median of `values` (the mean of the middle two for an even count; 0 for none). Reorders them.
double median(std::vector<double>& values);

}  // namespace muster::telemetry
