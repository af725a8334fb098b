// Routes each chunk of worker output everywhere it must go: the rank's log file (bytes as received),
// one LineSplitter per (rank, stream), whose Lines and Progress go to the terminal view and whose Lines
// also go to the rank's TailBuffer; and, when one is set, everything the view gets to a LineTap as well. The glue the head calls from its loop when an agent delivers output;
// it borrows the log set and the view (the head owns them) and, like them, never blocks on the terminal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "logs/line_splitter.h"
#include "logs/line_tap.h"
#include "logs/rank_log.h"
#include "logs/source.h"
#include "logs/tail_buffer.h"
#include "logs/terminal_view.h"
#include "util/result.h"

namespace muster::logs {

class LogMux {
 public:
  LogMux(RankLogSet& logs, TerminalView& view, size_t tail_lines = TailBuffer::kDefaultLines);

  // The log write's error, if any, is returned after the bytes were still shown.
  Result<void> output(const Source& source, std::string_view bytes, int64_t now_ms);
  void end_of_stream(const Source& source, int64_t now_ms);

  const TailBuffer& tail(int rank) const;
  // Also hand every line, progress and end of stream to `tap` (nullptr: none). Borrowed: it must outlive the mux
  // or be unset first.
  void set_tap(LineTap* tap) { tap_ = tap; }

 private:
  class Router;
  bool known(const Source& source) const;

  RankLogSet& logs_;
  TerminalView& view_;
  std::vector<LineSplitter> splitters_;  // rank * 2 + (stream == kStderr)
  std::vector<TailBuffer> tails_;
  LineTap* tap_ = nullptr;
};

}  // namespace muster::logs
