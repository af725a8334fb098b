#include "util/byte_queue.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace muster {

void ByteQueue::append(std::string_view bytes) {
  if (bytes.empty()) return;
  auto space = reserve_back(bytes.size());
  std::memcpy(space.data(), bytes.data(), bytes.size());
  commit_back(bytes.size());
}

void ByteQueue::consumed(size_t n) {
  assert(n <= size());
  head_ += n;
  if (head_ == tail_) {
    head_ = tail_ = 0;
  } else if (head_ > (1u << 20) && head_ * 2 > tail_) {
    std::memmove(data_.get(), data_.get() + head_, tail_ - head_);  // rarely: amortised O(1) per byte
    tail_ -= head_;
    head_ = 0;
  }
}

std::span<char> ByteQueue::reserve_back(size_t n) {
  if (capacity_ - tail_ < n) {
    size_t live = tail_ - head_;
    if (head_ >= capacity_ / 2 && capacity_ - live >= n) {
      std::memmove(data_.get(), data_.get() + head_, live);  // half the buffer is consumed: room at the front
    } else {
      size_t grown = std::max({capacity_ * 2, live + n, size_t{4096}});
      auto bigger = std::make_unique_for_overwrite<char[]>(grown);
      if (live > 0) std::memcpy(bigger.get(), data_.get() + head_, live);
      data_ = std::move(bigger);
      capacity_ = grown;
    }
    tail_ = live;
    head_ = 0;
  }
  return std::span<char>(data_.get() + tail_, n);
}

}  // namespace muster
