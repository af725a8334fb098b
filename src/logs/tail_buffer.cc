#include "logs/tail_buffer.h"

namespace muster::logs {

TailBuffer::TailBuffer(size_t max_lines, size_t max_line_bytes)
    : max_lines_(max_lines), max_line_bytes_(max_line_bytes), ring_(max_lines) {}

void TailBuffer::add(std::string_view line) {
  if (max_lines_ == 0) return;
  std::string& slot = ring_[next_];
  if (line.size() <= max_line_bytes_) {
    slot.assign(line);
  } else {
    slot.assign(line.substr(0, max_line_bytes_)).append("...");
  }
  next_ = (next_ + 1) % max_lines_;
  if (count_ < max_lines_) ++count_;
}

std::deque<std::string> TailBuffer::lines() const {
  std::deque<std::string> out;
  for (size_t i = 0; i < count_; ++i) out.push_back(ring_[(next_ + max_lines_ - count_ + i) % max_lines_]);
  return out;
}

}  // namespace muster::logs
