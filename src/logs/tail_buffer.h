// The last few complete lines a rank printed, kept for the failure report ("last lines of the root
// cause's output"). Fed the Lines of a LineSplitter (both streams of the rank, in arrival order). Bounded:
// at most max_lines lines of at most max_line_bytes each (longer ones are cut and marked with "...").
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace muster::logs {

class TailBuffer {
 public:
  static constexpr size_t kDefaultLines = 20;
  static constexpr size_t kDefaultLineBytes = 4096;

  explicit TailBuffer(size_t max_lines = kDefaultLines, size_t max_line_bytes = kDefaultLineBytes);

  // Called for every line a rank prints: a ring of strings whose storage is reused, so no allocation per line.
  void add(std::string_view line);
  std::deque<std::string> lines() const;  // oldest first

 private:
  size_t max_lines_;
  size_t max_line_bytes_;
  std::vector<std::string> ring_;
  size_t next_ = 0;   // the slot the next line goes to
  size_t count_ = 0;  // lines held (at most max_lines_)
};

}  // namespace muster::logs
