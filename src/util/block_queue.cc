#include "util/block_queue.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <utility>

namespace muster {
namespace {
constexpr size_t kSpareBlocks = 2;
}

BlockQueue::Block BlockQueue::fresh_block(size_t at_least) {
  if (at_least <= kBlockBytes && !spare_.empty()) {
    Block block = std::move(spare_.back());
    spare_.pop_back();
    return block;
  }
  Block block;
  block.capacity = std::max(at_least, kBlockBytes);
  block.data = std::make_unique_for_overwrite<char[]>(block.capacity);
  return block;
}

void BlockQueue::append(std::string_view bytes) {
  if (bytes.empty()) return;
  auto space = reserve_back(bytes.size());
  std::memcpy(space.data(), bytes.data(), bytes.size());
  commit_back(bytes.size());
}

std::string_view BlockQueue::pending() const {
  if (blocks_.empty()) return {};
  const Block& front = blocks_.front();
  return std::string_view(front.data.get() + front.begin, front.end - front.begin);
}

void BlockQueue::consumed(size_t n) {
  if (n == 0) return;
  assert(!blocks_.empty() && n <= blocks_.front().end - blocks_.front().begin);
  Block& front = blocks_.front();
  front.begin += n;
  size_ -= n;
  if (front.begin < front.end) return;
  if (blocks_.size() == 1) {
    front.begin = front.end = 0;  // the only block: written from its start again
    return;
  }
  Block done = std::move(front);
  blocks_.pop_front();
  if (done.capacity == kBlockBytes && spare_.size() < kSpareBlocks) {
    done.begin = done.end = 0;
    spare_.push_back(std::move(done));
  }
}

std::span<char> BlockQueue::reserve_back(size_t n) {
  if (blocks_.empty() || blocks_.back().capacity - blocks_.back().end < n) {
    if (!blocks_.empty() && blocks_.back().begin == blocks_.back().end) {
      // The last block holds nothing pending (the only one, all written): start it over if it is big enough.
      Block& last = blocks_.back();
      last.begin = last.end = 0;
      if (last.capacity < n) blocks_.back() = fresh_block(n);
    } else {
      blocks_.push_back(fresh_block(n));
    }
  }
  Block& last = blocks_.back();
  return std::span<char>(last.data.get() + last.end, n);
}

void BlockQueue::commit_back(size_t n) {
  assert(!blocks_.empty() && blocks_.back().end + n <= blocks_.back().capacity);
  blocks_.back().end += n;
  size_ += n;
}

}  // namespace muster
