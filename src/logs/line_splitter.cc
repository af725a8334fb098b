#include "logs/line_splitter.h"

#include <algorithm>
#include <cassert>
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

std::vector<SplitEvent> LineSplitter::feed(std::string_view bytes) {
  std::vector<SplitEvent> out;
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
    size_t stop = bytes.find_first_of("\r\n");
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
  return out;
}

std::vector<SplitEvent> LineSplitter::flush() {
  std::vector<SplitEvent> out;
  if (cr_pending_) {
    cr_pending_ = false;
    end_progress_segment();
  }
  if (!partial_.empty()) end_line(out);
  flush_progress(out);
  after_cr_ = false;
  partial_shown_ = false;
  last_segment_bytes_ = 0;
  return out;
}

void LineSplitter::append(std::string_view span, std::vector<SplitEvent>& out) {
  if (!span.empty()) partial_shown_ = false;
  while (!span.empty()) {
    size_t take = std::min(span.size(), max_line_bytes_ - partial_.size());
    partial_.append(span.substr(0, take));
    span.remove_prefix(take);
    if (partial_.size() >= max_line_bytes_) cut_long_line(out);
  }
}

// Emits partial_ (max_line_bytes_ long) as a Line, keeping back an incomplete UTF-8 sequence at its end.
void LineSplitter::cut_long_line(std::vector<SplitEvent>& out) {
  size_t cut = partial_.size();
  size_t lead = cut;
  while (lead > 0 && cut - lead < 3 && is_utf8_continuation(partial_[lead - 1])) --lead;
  if (lead > 0) {
    auto c = static_cast<unsigned char>(partial_[lead - 1]);
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (need > cut - lead + 1) cut = lead - 1;
  }
  flush_progress(out);
  out.emplace_back(Line{partial_.substr(0, cut)});
  partial_.erase(0, cut);
  partial_shown_ = false;
}

void LineSplitter::end_line(std::vector<SplitEvent>& out) {
  flush_progress(out);
  out.emplace_back(Line{std::move(partial_)});
  partial_.clear();
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

void LineSplitter::flush_progress(std::vector<SplitEvent>& out) {
  if (!has_progress_) return;
  out.emplace_back(Progress{std::move(progress_)});
  progress_.clear();
  has_progress_ = false;
}

}  // namespace muster::logs
