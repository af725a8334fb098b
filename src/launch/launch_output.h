// LaunchOutput: what a launch shows and keeps of its ranks' output — every rank's log file (rank-N.log), the
// terminal (a TerminalView written to a non-blocking stdout, watched in the process's EventLoop while it holds
// bytes, so a slow terminal never stalls the loop), and the attach clients' tap. muster's own notices go to the
// terminal and to attached clients. Ranks are placed by the running attempt's plan (set_plan).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "cluster/rank_plan.h"
#include "launch/launch_options.h"
#include "logs/log_mux.h"
#include "logs/rank_log.h"
#include "logs/terminal_view.h"
#include "posix/event_loop.h"
#include "util/result.h"

namespace muster::launch {

class AttachHub;

class LaunchOutput {
 public:
  // Opens the run directory's rank logs (`plan`: the largest plan, for prefixes and log count) and the view.
  static Result<std::unique_ptr<LaunchOutput>> open(const LaunchOptions& options, const cluster::RankPlan& plan,
                                                    const std::string& run_dir, posix::EventLoop& loop);
  ~LaunchOutput();

  void set_plan(const cluster::RankPlan& plan);  // the running attempt's: which node each rank is on
  void set_attach(AttachHub* hub);               // nullptr: no attach clients (yet)
  void output(int rank, int stream, std::string_view bytes, int64_t now);
  void end_of_stream(int rank, int64_t now);
  void notice(const std::string& text);  // "muster: " + text, shown at once
  void show(const std::string& text);    // as it is (the report)
  void status(const std::string& text);  // muster's own figures on the terminal's status line (TTY only)
  void tick(int64_t now);                // progress lines, one terminal write per round, rank logs flushed
  void finish();                         // the last progress line ends; logs flushed
  void drain();                          // what the view still holds, blocking (stdout back to blocking)
  std::deque<std::string> tail_lines(int rank) const { return mux_->tail(rank).lines(); }
  std::string log_path(int rank) const { return rank_logs_->path(rank).string(); }
  Result<void> flush_logs() { return rank_logs_->flush(); }

 private:
  LaunchOutput(posix::EventLoop& loop, std::unique_ptr<logs::RankLogSet> logs,
               std::unique_ptr<logs::TerminalView> view);
  logs::Source source_of(int rank, int stream) const;
  void flush_terminal();

  posix::EventLoop& loop_;
  std::unique_ptr<logs::RankLogSet> rank_logs_;
  std::unique_ptr<logs::TerminalView> terminal_;
  std::unique_ptr<logs::LogMux> mux_;
  AttachHub* attach_ = nullptr;
  cluster::RankPlan plan_;
  std::vector<int> node_of_rank_;  // index into plan_.nodes
  posix::EventLoop::FdWatch terminal_watch_;
  bool log_error_reported_ = false;
};

}  // namespace muster::launch
