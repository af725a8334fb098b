// The bytes a view has produced for the terminal and the caller has not written yet. The caller's event
// loop writes pending() with its own nonblocking fd and reports what went out with consumed(); nothing
// here blocks or touches an fd. One tail may be appended as retractable (the TTY status line): until any
// of it is consumed or something is appended after it, retract() takes it back, so a burst of output
// followed by a redraw costs one status line, not one per output line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace muster::logs {

class OutputQueue {
 public:
  std::string_view pending() const { return std::string_view(buf_).substr(head_); }
  size_t size() const { return buf_.size() - head_; }
  void consumed(size_t n);

  void append(std::string_view bytes);
  void append_retractable(std::string_view bytes);
  // Removes the retractable tail if it is still wholly pending and last; returns whether it did.
  bool retract();

 private:
  std::string buf_;
  size_t head_ = 0;
  size_t mark_ = 0;  // start of the retractable tail in buf_
  bool retractable_ = false;
};

}  // namespace muster::logs
