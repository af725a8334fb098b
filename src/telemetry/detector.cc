#include "telemetry/detector.h"

#include <algorithm>

namespace muster::telemetry {
namespace {

constexpr int64_t kStaleMs = 10'000;  // a rank without a figure this long stopped stepping
constexpr int64_t kLateMs = 2'000;    // a second is judged this long after it ended (samples arrive late)

// The median of `sorted` without its element at `skip`.
double median_without(const std::vector<double>& sorted, size_t skip) {
  size_t count = sorted.size() - 1;
  auto at = [&](size_t k) { return sorted[k < skip ? k : k + 1]; };
  if (count == 0) return 0;
  return count % 2 == 1 ? at(count / 2) : (at(count / 2 - 1) + at(count / 2)) / 2;
}

}  // namespace

double median(std::vector<double>& values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void StragglerDetector::add(uint32_t rank, int64_t now_ms, double compute_ms) {
  auto& [sum, count] = seconds_[now_ms / 1000][rank];
  sum += compute_ms;
  ++count;
}

void StragglerDetector::reset() {
  seconds_.clear();
  windows_.clear();
  standings_.clear();
}

// Each second that is over: every rank's compute against the median of the others' in that second.
void StragglerDetector::close_seconds(int64_t now_ms) {
  while (!seconds_.empty() && (seconds_.begin()->first + 1) * 1000 + kLateMs <= now_ms) {
    const auto& [second, ranks] = *seconds_.begin();
    if (ranks.size() >= 2) {
      std::vector<double> sorted;
      for (const auto& [rank, value] : ranks) sorted.push_back(value.first / value.second);
      std::sort(sorted.begin(), sorted.end());
      for (const auto& [rank, value] : ranks) {
        double compute = value.first / value.second;
        size_t at = static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), compute) - sorted.begin());
        double others = median_without(sorted, at);
        if (others <= 0) continue;
        windows_[rank].push_back(Entry{second * 1000 + 999, static_cast<float>(compute / others),
                                       static_cast<float>(compute), static_cast<float>(others)});
      }
    }
    seconds_.erase(seconds_.begin());
  }
}

std::vector<StragglerDetector::Change> StragglerDetector::evaluate(int64_t now_ms) {
  close_seconds(now_ms);
  std::vector<Change> changes;
  int64_t judged_to = now_ms - kLateMs;  // the newest second judged ends here
  for (auto& [rank, window] : windows_) {
    while (!window.empty() && window.front().at_ms <= judged_to - settings_.window_ms) window.pop_front();
    Standing& standing = standings_[rank];
    standing.judged = !window.empty() && window.back().at_ms >= judged_to - kStaleMs &&
                      window.front().at_ms <= judged_to - settings_.window_ms * 3 / 4;
    if (window.empty()) {
      if (standing.named) {  // it stopped stepping long ago
        standing.named = false;
        changes.push_back({rank, false, standing});
      }
      continue;
    }
    std::vector<double> ratios, compute, others;
    for (const auto& entry : window) {
      ratios.push_back(entry.ratio);
      compute.push_back(entry.compute_ms);
      others.push_back(entry.others_ms);
    }
    size_t recent = std::min(window.size(), std::max<size_t>(5, window.size() / 4));
    std::vector<double> recent_ratios(ratios.end() - static_cast<std::ptrdiff_t>(recent), ratios.end());
    std::vector<double> recent_compute(compute.end() - static_cast<std::ptrdiff_t>(recent), compute.end());
    std::vector<double> recent_others(others.end() - static_cast<std::ptrdiff_t>(recent), others.end());
    standing.recent_gap = median(recent_ratios) - 1;
    standing.recent_compute_ms = median(recent_compute);
    standing.recent_median_ms = median(recent_others);
    standing.gap = median(ratios) - 1;
    standing.compute_ms = median(compute);
    standing.median_ms = median(others);
    if (!standing.judged) continue;
    if (!standing.named && standing.gap >= settings_.threshold) {
      standing.named = true;
      standing.named_since_ms = now_ms;
      changes.push_back({rank, true, standing});
    } else if (standing.named && standing.gap < settings_.threshold / 2) {
      standing.named = false;
      changes.push_back({rank, false, standing});
    }
  }
  return changes;
}

std::optional<uint32_t> StragglerDetector::slowest() const {
  std::optional<uint32_t> worst;
  double gap = 0;
  for (const auto& [rank, standing] : standings_) {
    if (!standing.judged) continue;
    if (!worst || standing.gap > gap) {
      worst = rank;
      gap = standing.gap;
    }
  }
  return worst;
}

}  // namespace muster::telemetry
