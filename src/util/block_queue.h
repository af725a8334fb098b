// A FIFO of bytes for a stream that may back up by megabytes (the agent's frames to the head): the same interface
// as ByteQueue (byte_queue.h), kept in blocks instead of one buffer, so bytes are never moved once queued. A
// ByteQueue that holds a backlog moves it to the front of its buffer to make room: for an agent streaming logs
// to a slower sshd, that was another copy of most bytes, a sixth of the agent's CPU. Emptied blocks are kept
// for reuse (a few), so a steady stream touches no fresh memory either.
//
// pending() is the front block's part only: write it, report consumed(), and ask again until empty().
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace muster {

class BlockQueue {
 public:
  static constexpr size_t kBlockBytes = size_t{1} << 20;

  void append(std::string_view bytes);
  // The front block's pending bytes (empty only when the whole queue is).
  std::string_view pending() const;
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // `n` <= pending().size().
  void consumed(size_t n);

  // At least `n` writable bytes after the queued ones, contiguous; valid until the next call that changes the queue.
  std::span<char> reserve_back(size_t n);
  // The first `n` bytes of the last reserve_back() are queued.
  void commit_back(size_t n);

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
    size_t begin = 0;  // first pending byte
    size_t end = 0;    // one past the last
  };
  Block fresh_block(size_t at_least);

  std::deque<Block> blocks_;
  std::vector<Block> spare_;  // emptied blocks of kBlockBytes, for reuse
  size_t size_ = 0;
};

}  // namespace muster
