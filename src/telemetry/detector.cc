#include "telemetry/detector.h"

#include <algorithm>

namespace muster::telemetry {
namespace {

constexpr int64_t kStaleMs = 10'000;  // a rank without a figure this long stopped stepping

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
  windows_[rank].push_back(Entry{now_ms, static_cast<float>(compute_ms)});
}

void StragglerDetector::reset() {
  windows_.clear();
  standings_.clear();
}

std::vector<StragglerDetector::Change> StragglerDetector::evaluate(int64_t now_ms) {
  // Each rank's figure over the window.
  std::vector<std::pair<uint32_t, double>> figures;
  for (auto& [rank, window] : windows_) {
    while (!window.empty() && window.front().at_ms <= now_ms - settings_.window_ms) window.pop_front();
    Standing& standing = standings_[rank];
    standing.judged = false;
    if (window.empty() || window.back().at_ms < now_ms - kStaleMs) continue;
    bool long_enough = window.front().at_ms <= now_ms - settings_.window_ms * 3 / 4;
    std::vector<double> values;
    values.reserve(window.size());
    for (const auto& entry : window) values.push_back(entry.compute_ms);
    standing.compute_ms = median(values);
    if (long_enough) figures.emplace_back(rank, standing.compute_ms);
  }
  std::vector<double> sorted;
  for (const auto& [rank, figure] : figures) sorted.push_back(figure);
  std::sort(sorted.begin(), sorted.end());
  std::vector<Change> changes;
  if (figures.size() < 2) {
    for (auto& [rank, standing] : standings_) {
      if (standing.named && windows_[rank].empty()) {
        standing.named = false;
        changes.push_back({rank, false, standing});
      }
    }
    return changes;
  }
  for (const auto& [rank, figure] : figures) {
    Standing& standing = standings_[rank];
    size_t at = static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), figure) - sorted.begin());
    standing.median_ms = median_without(sorted, at);
    standing.gap = standing.median_ms > 0 ? figure / standing.median_ms - 1 : 0;
    standing.judged = true;
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
