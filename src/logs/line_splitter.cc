#include "logs/line_splitter.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <utility>

namespace muster::logs {
namespace {

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t") == std::string_view::npos;
}

bool is_utf8_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

LineSplitter::LineSplitter(size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {
  assert(max_line_bytes_ >= 8);
}

namespace {

// Where the current segment ends: the first '\r' or '\n' (npos if neither). memchr runs vectorized; looking for
// '\r' only before the first '\n' keeps a chunk of plain lines at one pass over each line.
size_t find_break(std::string_view bytes) {
  const void* newline = std::memchr(bytes.data(), '\n', bytes.size());
  size_t end = newline ? static_cast<size_t>(static_cast<const char*>(newline) - bytes.data()) : bytes.size();
  if (const void* cr = std::memchr(bytes.data(), '\r', end)) {
    return static_cast<size_t>(static_cast<const char*>(cr) - bytes.data());
  }
  return newline ? end : std::string_view::npos;
}

class Collect final : public SplitHandler {
 public:
  void line(std::string_view text) override { events.emplace_back(Line{std::string(text)}); }
  void progress(std::string_view text) override { events.emplace_back(Progress{std::string(text)}); }
  std::vector<SplitEvent> events;
};

}  // namespace

std::vector<SplitEvent> LineSplitter::feed(std::string_view bytes) {
  Collect out;
  feed(bytes, out);
  return std::move(out.events);
}

std::vector<SplitEvent> LineSplitter::flush() {
  Collect out;
  flush(out);
  return std::move(out.events);
}

void LineSplitter::feed(std::string_view bytes, SplitHandler& out) {
  while (!bytes.empty()) {
    if (cr_pending_) {
      cr_pending_ = false;
      if (bytes.front() == '\n') {
        bytes.remove_prefix(1);
        end_line(out);
        continue;
      }
      end_progress_segment();
    }
    size_t stop = find_break(bytes);
    if (stop != std::string_view::npos && bytes[stop] == '\n' && partial_.empty() && stop < max_line_bytes_) {
      // A whole line inside this chunk: handed over where it lies (what end_line does, without the copy).
      flush_progress(out);
      out.line(bytes.substr(0, stop));
      after_cr_ = false;
      last_segment_bytes_ = 0;
      partial_shown_ = false;
      bytes.remove_prefix(stop + 1);
      continue;
    }
    append(bytes.substr(0, stop), out);
    if (stop == std::string_view::npos) break;
    if (bytes[stop] == '\n') {
      end_line(out);
    } else {
      cr_pending_ = true;
    }
    bytes.remove_prefix(stop + 1);
  }
  show_tentative_tail();
  flush_progress(out);
}

void LineSplitter::flush(SplitHandler& out) {
  if (cr_pending_) {
    cr_pending_ = false;
    end_progress_segment();
  }
  if (!partial_.empty()) end_line(out);
  flush_progress(out);
  after_cr_ = false;
  partial_shown_ = false;
  last_segment_bytes_ = 0;
}

void LineSplitter::append(std::string_view span, SplitHandler& out) {
  if (!span.empty()) partial_shown_ = false;
  while (!span.empty()) {
    size_t take = std::min(span.size(), max_line_bytes_ - partial_.size());
    partial_.append(span.substr(0, take));
    span.remove_prefix(take);
    if (partial_.size() >= max_line_bytes_) cut_long_line(out);
  }
}

// Emits partial_ (max_line_bytes_ long) as a Line, keeping back an incomplete UTF-8 sequence at its end.
void LineSplitter::cut_long_line(SplitHandler& out) {
  size_t cut = partial_.size();
  size_t lead = cut;
  while (lead > 0 && cut - lead < 3 && is_utf8_continuation(partial_[lead - 1])) --lead;
  if (lead > 0) {
    auto c = static_cast<unsigned char>(partial_[lead - 1]);
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (need > cut - lead + 1) cut = lead - 1;
  }
  flush_progress(out);
  out.line(std::string_view(partial_).substr(0, cut));
  partial_.erase(0, cut);
  partial_shown_ = false;
}

void LineSplitter::end_line(SplitHandler& out) {
  flush_progress(out);
  out.line(partial_);
  partial_.clear();  // keeps its capacity: the next long line reuses it
  after_cr_ = false;
  last_segment_bytes_ = 0;
  partial_shown_ = false;
}

void LineSplitter::end_progress_segment() {
  if (!is_blank(partial_)) {
    last_segment_bytes_ = partial_.size();
    if (!partial_shown_) {
      progress_ = std::move(partial_);
      has_progress_ = true;
    }
  }
  partial_.clear();
  after_cr_ = true;
  partial_shown_ = false;
}

// At the end of a feed, the segment just ended by a '\r' (CRLF is still possible), or the one being
// written after a '\r', is the writer's current status: show it now rather than one redraw late. A tail
// shorter than the previous segment is most likely cut mid-write (tqdm pads redraws to the last width),
// so it waits for its end.
void LineSplitter::show_tentative_tail() {
  bool complete_enough = cr_pending_ || (after_cr_ && partial_.size() >= last_segment_bytes_);
  if (complete_enough && !partial_shown_ && !is_blank(partial_)) {
    progress_ = partial_;
    has_progress_ = true;
    partial_shown_ = true;
  }
}

void LineSplitter::flush_progress(SplitHandler& out) {
  if (!has_progress_) return;
  out.progress(progress_);
  progress_.clear();
  has_progress_ = false;
}

}  // namespace muster::logs
