// A FIFO of bytes waiting to be written to a nonblocking fd: append at the back, consume from the front.
// Passive: the owner's event loop writes pending() when the fd is writable and reports consumed(n).
// Used for agent -> head frames, head -> agent frames and the terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace muster {

class ByteQueue {
 public:
  void append(std::string_view bytes) { data_.append(bytes); }
  std::string_view pending() const { return std::string_view(data_).substr(head_); }
  size_t size() const { return data_.size() - head_; }
  bool empty() const { return size() == 0; }
  void consumed(size_t n) {
    head_ += n;
    if (head_ == data_.size()) {
      data_.clear();
      head_ = 0;
    } else if (head_ > (1u << 20) && head_ * 2 > data_.size()) {
      data_.erase(0, head_);  // compact rarely: amortised O(1) per byte
      head_ = 0;
    }
  }

 private:
  std::string data_;
  size_t head_ = 0;
};

}  // namespace muster
