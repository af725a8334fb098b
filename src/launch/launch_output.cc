#include "launch/launch_output.h"

#include "launch/attach_hub.h"
#include "launch/rank_log_files.h"
#include "logs/prefix.h"
#include "logs/rank_filter.h"
#include "logs/terminal_output.h"
#include "posix/file.h"
#include "util/run_dir.h"

namespace muster::launch {
namespace {

constexpr int kTerminal = 1;
constexpr size_t kTerminalBatchBytes = 128 * 1024;  // output() writes the terminal at least this much at once

}  // namespace

Result<std::unique_ptr<LaunchOutput>> LaunchOutput::open(const LaunchOptions& options, const cluster::RankPlan& plan,
                                                         const std::string& run_dir, posix::EventLoop& loop) {
  logs::PrefixLayout layout{plan.world_size, static_cast<int>(plan.nodes.size()), plan.max_local_world_size, 0};
  auto prefix = logs::PrefixFormat::parse(options.prefix_format, layout);
  if (!prefix) return prefix.error();
  auto filter = logs::RankFilter::parse(options.ranks_shown);
  if (!filter) return filter.error();
  if (auto made = make_run_dir(run_dir); !made) return made.error();
  auto rank_logs = logs::RankLogSet::open(run_dir, plan.world_size, private_log_opener());
  if (!rank_logs) return rank_logs.error();
  logs::TerminalOptions view;
  view.is_tty = options.is_tty;
  view.color = options.color;
  view.prefix = *prefix;
  view.ranks = options.detached ? logs::RankFilter::none() : *filter;  // detached: head.log has muster's own
  view.log_dir = run_dir;
  std::unique_ptr<LaunchOutput> output(new LaunchOutput(
      loop, std::make_unique<logs::RankLogSet>(std::move(*rank_logs)), std::make_unique<logs::TerminalView>(std::move(view))));
  output->set_plan(plan);
  return output;
}

LaunchOutput::LaunchOutput(posix::EventLoop& loop, std::unique_ptr<logs::RankLogSet> logs,
                           std::unique_ptr<logs::TerminalView> view)
    : loop_(loop), rank_logs_(std::move(logs)), terminal_(std::move(view)),
      mux_(std::make_unique<logs::LogMux>(*rank_logs_, *terminal_)) {}

LaunchOutput::~LaunchOutput() { mux_->set_tap(nullptr); }

void LaunchOutput::set_plan(const cluster::RankPlan& plan) {
  plan_ = plan;
  node_of_rank_.assign(static_cast<size_t>(plan.world_size), 0);
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    for (const auto& rank : plan.nodes[i].ranks) node_of_rank_[static_cast<size_t>(rank.global_rank)] = static_cast<int>(i);
  }
}

void LaunchOutput::set_attach(AttachHub* hub) {
  attach_ = hub;
  mux_->set_tap(hub);
}

logs::Source LaunchOutput::source_of(int rank, int stream) const {
  const auto& node = plan_.nodes[static_cast<size_t>(node_of_rank_[static_cast<size_t>(rank)])];
  return logs::Source{rank, rank - node.first_global_rank, node.node_rank, node.host.name, stream};
}

void LaunchOutput::output(int rank, int stream, std::string_view bytes, int64_t now) {
  if (rank < 0 || rank >= plan_.world_size) return;
  auto logged = mux_->output(source_of(rank, stream), bytes, now);
  if (!logged && !log_error_reported_) {
    log_error_reported_ = true;
    notice("cannot write the rank logs: " + logged.error().message);
  }
  // Written once per loop round (tick), or sooner when a round brings more than kTerminalBatchBytes: an Output
  // frame is often one 4 KiB pipe read, and a write per frame was 50,000 writes for 4 x 50 MB of lines. The batch
  // stays far below the queue's limit (TerminalView's max_pending_bytes), which drops lines only for a terminal
  // that cannot keep up.
  if (terminal_->pending().size() >= kTerminalBatchBytes) flush_terminal();
}

void LaunchOutput::end_of_stream(int rank, int64_t now) {
  if (rank < 0 || rank >= plan_.world_size) return;
  for (int stream : {logs::kStdout, logs::kStderr}) mux_->end_of_stream(source_of(rank, stream), now);
}

void LaunchOutput::notice(const std::string& text) {
  show("muster: " + text);
  flush_terminal();
}

void LaunchOutput::status(const std::string& text) {
  terminal_->set_job_status(text);
  flush_terminal();
}

void LaunchOutput::show(const std::string& text) {
  terminal_->notice(text);
  if (attach_) attach_->notice(text);
}

// The terminal is watched for writability only while the view holds bytes it could not write.
void LaunchOutput::flush_terminal() {
  bool want = logs::write_pending(*terminal_, kTerminal);
  if (want == terminal_watch_.active()) return;
  if (!want) return terminal_watch_.reset();
  auto watch = loop_.watch(kTerminal, posix::poll_writable, [this](uint32_t) { flush_terminal(); });
  if (watch) terminal_watch_ = std::move(*watch);
}

void LaunchOutput::tick(int64_t now) {
  terminal_->tick(now);
  flush_terminal();
  (void)rank_logs_->flush();  // a killed head loses at most one round of log bytes
}

void LaunchOutput::finish() {
  terminal_->finish();
  (void)rank_logs_->flush();  // before the record says the job ended: `muster logs -f` then reads everything
}

void LaunchOutput::drain() {
  terminal_watch_.reset();
  while (!terminal_->pending().empty()) {
    std::string bytes(terminal_->pending());
    if (!posix::write_all(kTerminal, bytes)) return;
    terminal_->consumed(bytes.size());
  }
}

}  // namespace muster::launch
