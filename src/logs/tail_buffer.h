// The last few complete lines a rank printed, kept for the failure report ("last lines of the root
// cause's output"). Fed the Lines of a LineSplitter (both streams of the rank, in arrival order). Bounded:
// at most max_lines lines of at most max_line_bytes each (longer ones are cut and marked with "...").
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace muster::logs {

class TailBuffer {
 public:
  static constexpr size_t kDefaultLines = 20;
  static constexpr size_t kDefaultLineBytes = 4096;

  explicit TailBuffer(size_t max_lines = kDefaultLines, size_t max_line_bytes = kDefaultLineBytes);

  void add(std::string_view line);
  const std::deque<std::string>& lines() const { return lines_; }  // oldest first

 private:
  size_t max_lines_;
  size_t max_line_bytes_;
  std::deque<std::string> lines_;
};

}  // namespace muster::logs
