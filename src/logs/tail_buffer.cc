#include "logs/tail_buffer.h"

namespace muster::logs {

TailBuffer::TailBuffer(size_t max_lines, size_t max_line_bytes)
    : max_lines_(max_lines), max_line_bytes_(max_line_bytes) {}

void TailBuffer::add(std::string_view line) {
  if (max_lines_ == 0) return;
  if (lines_.size() == max_lines_) lines_.pop_front();
  if (line.size() <= max_line_bytes_) {
    lines_.emplace_back(line);
  } else {
    lines_.emplace_back(line.substr(0, max_line_bytes_)).append("...");
  }
}

}  // namespace muster::logs
