// Series: one entity's figures over the whole run (a rank, a node, a GPU), in at most `max_points` points. Points
// start one per sample (a second); when the series is full, neighbouring points are merged pairwise and the
// resolution doubles, so a series of 1,024 points holds 17 minutes at 1 s, a day at ~2 min, a week at ~10 min,
// and its size never grows past the bound (the store's bound: store.h). Each column says how two points merge:
// the mean of their samples (weighted by how many each holds), their sum, or their maximum. A figure that was not
// measured is NaN and does not count in a mean. Pure.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace muster::telemetry {

enum class Merge : uint8_t { mean, sum, max };
struct Column {
  const char* name;
  Merge merge;
};

class Series {
 public:
  Series(std::span<const Column> columns, size_t max_points);

  // A sample at `t_s` (seconds since the store's start; not before the last one), one value per column.
  void add(uint32_t t_s, std::span<const float> values);

  size_t size() const { return t_.size(); }
  size_t width() const { return columns_.size(); }
  uint32_t resolution_s() const { return resolution_; }
  uint32_t time(size_t i) const { return t_[i]; }
  uint32_t samples(size_t i) const { return n_[i]; }  // how many samples point i holds
  float value(size_t i, size_t column) const { return v_[i * width() + column]; }
  std::span<const Column> columns() const { return columns_; }

  // The same series with at most `points` points (merged the same way), for a view that needs fewer.
  Series thinned(size_t points) const;

  // Binary form (little-endian): u32 resolution, u32 count, then count x (u32 t, u32 n, width x f32).
  void append_to(std::string& out) const;
  // Reads what append_to wrote from `in` at `offset` (advanced); false when it does not fit.
  bool read_from(std::string_view in, size_t& offset);

  static constexpr size_t bytes_per_point(size_t width) { return 8 + 4 * width; }

 private:
  void merge_into(size_t into, size_t from);
  void halve();

  std::span<const Column> columns_;
  size_t max_points_;
  uint32_t resolution_ = 1;
  std::vector<uint32_t> t_;
  std::vector<uint32_t> n_;
  std::vector<float> v_;
};

}  // namespace muster::telemetry
