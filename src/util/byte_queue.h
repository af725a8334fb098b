// A FIFO of bytes waiting to be written to a nonblocking fd: append at the back, consume from the front.
// Passive: the owner's event loop writes pending() when the fd is writable and reports consumed(n).
// Used for agent -> head frames, head -> agent frames and the terminal.
//
// Bytes can also be produced in place (reserve_back, then commit_back): the agent reads worker output straight
// into its queue behind a frame header, with no copy and no zero-filling of the space it may not use.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

namespace muster {

class ByteQueue {
 public:
  void append(std::string_view bytes);
  std::string_view pending() const { return std::string_view(data_.get() + head_, tail_ - head_); }
  size_t size() const { return tail_ - head_; }
  bool empty() const { return size() == 0; }
  void consumed(size_t n);

  // At least `n` writable bytes after the queued ones; valid until the next call that changes the queue.
  std::span<char> reserve_back(size_t n);
  // The first `n` bytes of the last reserve_back() are queued.
  void commit_back(size_t n) { tail_ += n; }

 private:
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
  size_t head_ = 0;  // first pending byte
  size_t tail_ = 0;  // one past the last
};

}  // namespace muster
