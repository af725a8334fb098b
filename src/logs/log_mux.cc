#include "logs/log_mux.h"

#include <cassert>
#include <variant>

namespace muster::logs {
namespace {

size_t splitter_index(const Source& source) {
  return static_cast<size_t>(source.rank) * 2 + (source.stream == kStderr ? 1 : 0);
}

}  // namespace

LogMux::LogMux(RankLogSet& logs, TerminalView& view, size_t tail_lines)
    : logs_(logs),
      view_(view),
      splitters_(static_cast<size_t>(logs.rank_count()) * 2),
      tails_(static_cast<size_t>(logs.rank_count()), TailBuffer(tail_lines)) {}

Result<void> LogMux::output(const Source& source, std::string_view bytes, int64_t now_ms) {
  Result<void> logged = logs_.write(source.rank, bytes);
  if (known(source)) route(source, splitters_[splitter_index(source)].feed(bytes), now_ms);
  return logged;
}

void LogMux::end_of_stream(const Source& source, int64_t now_ms) {
  if (!known(source)) return;
  route(source, splitters_[splitter_index(source)].flush(), now_ms);
  view_.end_of_stream(source);
  if (tap_) tap_->end_of_stream(source);
}

const TailBuffer& LogMux::tail(int rank) const {
  assert(rank >= 0 && static_cast<size_t>(rank) < tails_.size());
  return tails_[static_cast<size_t>(rank)];
}

void LogMux::route(const Source& source, std::vector<SplitEvent> events, int64_t now_ms) {
  for (const SplitEvent& event : events) {
    if (const auto* line = std::get_if<Line>(&event)) {
      view_.line(source, line->text);
      tails_[static_cast<size_t>(source.rank)].add(line->text);
      if (tap_) tap_->line(source, line->text);
    } else {
      view_.progress(source, std::get<Progress>(event).text, now_ms);
      if (tap_) tap_->progress(source, std::get<Progress>(event).text, now_ms);
    }
  }
}

bool LogMux::known(const Source& source) const {
  return source.rank >= 0 && source.rank < logs_.rank_count();
}

}  // namespace muster::logs
