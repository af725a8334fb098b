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

// The splitter's events for one chunk of one (rank, stream), routed as they come.
class LogMux::Router final : public SplitHandler {
 public:
  Router(LogMux& mux, const Source& source, int64_t now_ms) : mux_(mux), source_(source), now_ms_(now_ms) {}
  void line(std::string_view text) override {
    mux_.view_.line(source_, text);
    mux_.tails_[static_cast<size_t>(source_.rank)].add(text);
    if (mux_.tap_) mux_.tap_->line(source_, text);
  }
  void progress(std::string_view text) override {
    mux_.view_.progress(source_, text, now_ms_);
    if (mux_.tap_) mux_.tap_->progress(source_, text, now_ms_);
  }

 private:
  LogMux& mux_;
  const Source& source_;
  int64_t now_ms_;
};

Result<void> LogMux::output(const Source& source, std::string_view bytes, int64_t now_ms) {
  Result<void> logged = logs_.write(source.rank, bytes);
  if (known(source)) {
    Router router(*this, source, now_ms);
    splitters_[splitter_index(source)].feed(bytes, router);
  }
  return logged;
}

void LogMux::end_of_stream(const Source& source, int64_t now_ms) {
  if (!known(source)) return;
  Router router(*this, source, now_ms);
  splitters_[splitter_index(source)].flush(router);
  view_.end_of_stream(source);
  if (tap_) tap_->end_of_stream(source);
}

const TailBuffer& LogMux::tail(int rank) const {
  assert(rank >= 0 && static_cast<size_t>(rank) < tails_.size());
  return tails_[static_cast<size_t>(rank)];
}

bool LogMux::known(const Source& source) const {
  return source.rank >= 0 && source.rank < logs_.rank_count();
}

}  // namespace muster::logs
