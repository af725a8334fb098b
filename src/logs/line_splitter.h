// Turns the raw bytes of one (rank, stream) into display events, the way a terminal would show them.
//
//   Line{text}      a complete line, without its '\n'; "\r\n" (CRLF) counts as one '\n'.
//   Progress{text}  the current text of a '\r'-redrawn status (tqdm, pip, wget): a segment ended by a
//                   '\r' that is not part of CRLF, or - because tqdm writes "\r<bar>" - the unterminated
//                   tail of a chunk that follows a '\r', unless it is shorter than the segment before it
//                   (then it is probably cut mid-write and waits for its end). Of several progress
//                   segments in a row only the latest non-blank one is emitted (at most once per feed,
//                   and before the next Line); blank ones (tqdm's "\r    \r" erase) are dropped.
//
// Bytes may arrive split at any position; the events for complete lines do not depend on where (progress
// events do: they are a sampled view). A line longer than max_line_bytes (default 64 KiB) is emitted as
// several Lines, cut on a UTF-8 boundary, so memory stays bounded. Everything else - ANSI escapes, NULs,
// invalid UTF-8 - passes through unchanged. Byte-exact output is the rank log's job (rank_log.h), not this.
//
// Known ambiguity: a chunk that ends in "\r" shows the text before it as Progress; if the next chunk then
// starts with "\n" the same text also arrives as a Line (CRLF split across chunks).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace muster::logs {

struct Line {
  std::string text;
  bool operator==(const Line&) const = default;
};
struct Progress {
  std::string text;
  bool operator==(const Progress&) const = default;
};
using SplitEvent = std::variant<Line, Progress>;

// Where a splitter's events go, as they happen: the views are valid only during the call (they point into the
// bytes being fed or the splitter's own buffer), so a complete line is never copied unless the handler copies it.
// This is the head's path for every line of every rank (LogMux); the vector-returning calls below are for tests.
class SplitHandler {
 public:
  virtual void line(std::string_view text) = 0;
  virtual void progress(std::string_view text) = 0;

 protected:
  ~SplitHandler() = default;
};

class LineSplitter {
 public:
  static constexpr size_t kMaxLineBytes = 64 * 1024;

  explicit LineSplitter(size_t max_line_bytes = kMaxLineBytes);

  // Consumes `bytes`; hands the events they complete to `out`, in order.
  void feed(std::string_view bytes, SplitHandler& out);
  // End of stream: emits what is left (a final unterminated line, a final "...\r" progress).
  void flush(SplitHandler& out);
  // The same, collected (copies every event).
  std::vector<SplitEvent> feed(std::string_view bytes);
  std::vector<SplitEvent> flush();

 private:
  void append(std::string_view span, SplitHandler& out);
  void end_line(SplitHandler& out);
  void end_progress_segment();
  void show_tentative_tail();
  void flush_progress(SplitHandler& out);
  void cut_long_line(SplitHandler& out);

  size_t max_line_bytes_;
  std::string partial_;            // the current segment, without terminator
  bool cr_pending_ = false;        // the last byte was '\r'; a '\n' next makes it CRLF
  bool after_cr_ = false;          // the current segment follows a '\r' (a redraw)
  bool partial_shown_ = false;     // partial_, as it is now, was already emitted as Progress
  size_t last_segment_bytes_ = 0;  // length of the last progress segment of this line
  std::string progress_;           // latest progress segment not yet emitted
  bool has_progress_ = false;
};

}  // namespace muster::logs
