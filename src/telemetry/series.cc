#include "telemetry/series.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace muster::telemetry {
namespace {

template <typename T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

template <typename T>
bool get(std::string_view in, size_t& offset, T& value) {
  if (offset > in.size() || in.size() - offset < sizeof(T)) return false;
  std::memcpy(&value, in.data() + offset, sizeof(T));
  offset += sizeof(T);
  return true;
}

}  // namespace

Series::Series(std::span<const Column> columns, size_t max_points)
    : columns_(columns), max_points_(std::max<size_t>(max_points, 2)) {}

void Series::add(uint32_t t_s, std::span<const float> values) {
  assert(values.size() == width());
  if (!t_.empty() && t_s < t_.back()) t_s = t_.back();
  bool same_bucket = !t_.empty() && t_s / resolution_ == t_.back() / resolution_;
  if (!same_bucket) {
    t_.push_back(t_s / resolution_ * resolution_);
    n_.push_back(0);
    v_.insert(v_.end(), width(), std::nanf(""));
  }
  size_t last = t_.size() - 1;
  uint32_t n = n_[last];
  for (size_t c = 0; c < width(); ++c) {
    float& into = v_[last * width() + c];
    float value = values[c];
    if (std::isnan(value)) continue;
    if (std::isnan(into)) {
      into = value;
      continue;
    }
    switch (columns_[c].merge) {
      case Merge::mean: into = (into * static_cast<float>(n) + value) / static_cast<float>(n + 1); break;
      case Merge::sum: into += value; break;
      case Merge::max: into = std::max(into, value); break;
    }
  }
  n_[last] = n + 1;
  if (t_.size() > max_points_) halve();
}

void Series::merge_into(size_t into, size_t from) {
  uint32_t a = n_[into], b = n_[from];
  for (size_t c = 0; c < width(); ++c) {
    float& x = v_[into * width() + c];
    float y = v_[from * width() + c];
    if (std::isnan(y)) continue;
    if (std::isnan(x)) {
      x = y;
      continue;
    }
    switch (columns_[c].merge) {
      case Merge::mean:
        x = a + b == 0 ? (x + y) / 2 : (x * static_cast<float>(a) + y * static_cast<float>(b)) / static_cast<float>(a + b);
        break;
      case Merge::sum: x += y; break;
      case Merge::max: x = std::max(x, y); break;
    }
  }
  n_[into] = a + b;
}

// Pairs of points merged: the series keeps its span of time at half the points.
void Series::halve() {
  resolution_ *= 2;
  size_t out = 0;
  for (size_t i = 0; i < t_.size(); ++out) {
    if (out != i) {
      t_[out] = t_[i];
      n_[out] = n_[i];
      std::copy_n(v_.begin() + static_cast<std::ptrdiff_t>(i * width()), width(),
                  v_.begin() + static_cast<std::ptrdiff_t>(out * width()));
    }
    t_[out] = t_[out] / resolution_ * resolution_;
    size_t next = i + 1;
    if (next < t_.size() && t_[next] / resolution_ * resolution_ == t_[out]) {
      merge_into(out, next);
      next = i + 2;
    }
    i = next;
  }
  t_.resize(out);
  n_.resize(out);
  v_.resize(out * width());
  if (t_.size() > max_points_) halve();  // gaps kept pairs apart: coarser again
}

Series Series::thinned(size_t points) const {
  Series copy = *this;
  copy.max_points_ = std::max<size_t>(points, 2);
  while (copy.t_.size() > copy.max_points_) copy.halve();
  return copy;
}

void Series::append_to(std::string& out) const {
  put<uint32_t>(out, resolution_);
  put<uint32_t>(out, static_cast<uint32_t>(t_.size()));
  for (size_t i = 0; i < t_.size(); ++i) {
    put(out, t_[i]);
    put(out, n_[i]);
    for (size_t c = 0; c < width(); ++c) put(out, v_[i * width() + c]);
  }
}

bool Series::read_from(std::string_view in, size_t& offset) {
  uint32_t resolution = 0, count = 0;
  if (!get(in, offset, resolution) || !get(in, offset, count) || resolution == 0) return false;
  if (uint64_t{count} * bytes_per_point(width()) > in.size() - offset) return false;
  resolution_ = resolution;
  t_.resize(count);
  n_.resize(count);
  v_.resize(size_t{count} * width());
  for (size_t i = 0; i < count; ++i) {
    get(in, offset, t_[i]);
    get(in, offset, n_[i]);
    for (size_t c = 0; c < width(); ++c) get(in, offset, v_[i * width() + c]);
  }
  max_points_ = std::max<size_t>(max_points_, count);
  return true;
}

}  // namespace muster::telemetry
