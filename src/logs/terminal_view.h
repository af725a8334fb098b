// What the user sees of the job on the head's terminal: every rank's lines, prefixed and optionally
// coloured, muster's own notices, and progress bars - without blocking on a slow terminal.
//
// Passive: the view only produces bytes into a bounded queue. The head's event loop writes pending()
// to its nonblocking stdout when the poller says it is writable and reports consumed(n). The view never
// touches an fd, never waits, and reads the time only from its arguments.
//
// Output rules (the tests in tests/unit/logs/terminal_view_test.cc pin them byte for byte):
// - Every line goes into the queue whole, as prefix + text + '\n'; lines are never interleaved.
// - Lines and progress of ranks outside options.ranks are ignored (the caller still logs them).
// - TTY: one live status line at the bottom shows the latest progress of the lowest rank that has one,
//   plus " (+N ranks)" for the others, cut to options.width columns. It is erased ("\r\x1b[K") before
//   anything else is printed and redrawn after. A rank's line on the stream its progress came from ends
//   that progress (tqdm's final "100%|...|\n" is such a line). At end of stream a progress still showing
//   is printed as a normal line, so the final state stays on screen.
// - Colour (options.color; the caller turns it off for NO_COLOR): the prefix in a colour picked by
//   node_rank from a fixed palette, notices in bold. The only escape codes of a TTY without colour are
//   the status line's "\r\x1b[K". Not a TTY: no escape codes at all, whatever options.color says.
// - Not a TTY: progress is printed as a normal prefixed line, at most once per progress_interval_ms per
//   rank; a newer progress held back by the interval is printed by tick() once the interval has passed,
//   or before that rank's next line on the same stream, or at its end of stream.
// - Flow control: a line that would take the queue past max_pending_bytes is dropped whole, and so is
//   every line after it until the queue drains below half; then one notice says how many were lost and
//   where the full output is. Notices are never dropped.
// Worker text is passed through as is, escape codes included; the view adds but never strips.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "logs/output_queue.h"
#include "logs/prefix.h"
#include "logs/rank_filter.h"
#include "logs/source.h"

namespace muster::logs {

struct TerminalOptions {
  bool is_tty = false;
  bool color = false;   // only honoured on a TTY
  PrefixFormat prefix;  // default "[{node}:{rank}] "
  RankFilter ranks;     // default: all
  size_t max_pending_bytes = 1024 * 1024;
  int64_t progress_interval_ms = 10'000;  // not a TTY: at most one progress line per rank per interval
  size_t width = 120;                     // TTY: status line width in columns; 0 = no limit
  std::string log_dir;                    // named in the "lines not shown" notice
};

class TerminalView {
 public:
  explicit TerminalView(TerminalOptions options);

  void line(const Source& source, std::string_view text);
  void progress(const Source& source, std::string_view text, int64_t now_ms);
  void end_of_stream(const Source& source);
  void notice(std::string_view text);  // muster's own message, e.g. "muster: node3 lost"
  // TTY: muster's own figures on the status line ("12.3 steps/s, slowest rank 3 (node2) +4 %"), after the
  // progress shown there, or alone; empty: none. Not a TTY: ignored (stragglers come as notices).
  void set_job_status(std::string text);
  void tick(int64_t now_ms);
  // The job is over: prints every final progress still held, reports dropped lines, erases the status.
  void finish();

  std::string_view pending() const { return queue_.pending(); }
  // May queue more (the dropped-lines notice, the status line): look at pending() again afterwards.
  void consumed(size_t n);

  size_t dropped_lines() const { return dropped_; }  // dropped and not yet reported

 private:
  struct RankProgress {
    Source source;
    std::string text;
    bool active = false;   // text is the rank's current progress
    bool unshown = false;  // not a TTY: text has not been printed yet
    bool ever_shown = false;
    int64_t last_shown_ms = 0;
  };

  void print_line(const Source& source, std::string_view text);
  void print_notice(std::string_view text);
  void show_progress(RankProgress& entry, int64_t now_ms);
  void end_progress(RankProgress& entry, bool keep_on_screen);
  bool admit(size_t bytes);
  void report_dropped();
  const std::string& colored_prefix(const Source& source);
  std::string render_status();
  void erase_status();
  void redraw_status();

  TerminalOptions options_;
  OutputQueue queue_;
  std::map<int, RankProgress> progress_;  // by rank; ordered so the status shows the lowest rank
  size_t active_progress_ = 0;
  std::unordered_map<int64_t, std::string> prefixes_;  // by rank * 4 + stream
  int64_t last_prefix_key_ = -1;
  const std::string* last_prefix_ = nullptr;  // prefixes_[last_prefix_key_]
  std::string scratch_;
  bool status_on_screen_ = false;  // the queue, once written, leaves a status line on the last row
  std::string drawn_status_;
  std::string job_status_;
  bool dropping_ = false;
  size_t dropped_ = 0;
};

}  // namespace muster::logs
