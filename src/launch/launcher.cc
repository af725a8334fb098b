// The head's side of `muster launch` (launcher.h; see also gang.h, head/agent_pool.h). The pool's poll() is the
// only place that waits; the gang and the log views are passive.
#include "launch/launcher.h"

#include <algorithm>
#include <csignal>
#include <memory>

#include <fmt/core.h>

#include "head/agent_pool.h"
#include "launch/command_template.h"
#include "launch/gang.h"
#include "launch/master_address.h"
#include "launch/manifest.h"
#include "launch/rank_env.h"
#include "launch/worker_env.h"
#include "logs/log_mux.h"
#include "logs/prefix.h"
#include "logs/rank_filter.h"
#include "logs/rank_log.h"
#include "logs/terminal_view.h"
#include "posix/clock.h"
#include "posix/exit_status.h"
#include "posix/fd.h"
#include "posix/poller.h"
#include "posix/signals.h"
#include "posix/terminal.h"
#include "util/random.h"

namespace muster::launch {
namespace {

constexpr int kTerminal = 1;
constexpr int kShutdownWaitMs = 3000;                    // agents get this long to exit after Shutdown
constexpr uint64_t kTerminalToken = uint64_t{16} << 32;  // the terminal, watched in the pool's loop

enum class Phase { picking_port, running, done };

// Per-node mode runs one process per node; for the gang and the logs that is a plan of one rank per node.
cluster::RankPlan one_rank_per_node(const cluster::RankPlan& plan) {
  cluster::RankPlan single;
  for (const auto& node : plan.nodes) {
    cluster::NodePlan copy = node;
    copy.first_global_rank = node.node_rank;
    copy.ranks = {cluster::RankAssignment{node.node_rank, 0, node.node_rank, 1, 0}};
    single.nodes.push_back(copy);
  }
  single.world_size = static_cast<int>(plan.nodes.size());
  single.max_local_world_size = 1;
  return single;
}

class Launcher final : public head::PoolListener {
 public:
  Launcher(const LaunchOptions& options, head::AgentPool& pool);
  Result<void> open_logs();
  Result<int> run();
  // Writes what the terminal view still holds, blocking (after the terminal is back to blocking mode).
  void drain_terminal();

 private:
  // PoolListener
  void on_message(size_t node, const protocol::AgentMessage& message) override;
  void on_lost(size_t node, const std::string& why, const std::string& diagnostics) override;
  void on_watched_fd(uint64_t token, uint32_t events) override;
  // the job
  void pick_port();
  void spawn_attempt();
  std::vector<std::string> spawn_env(const cluster::NodePlan& node, const cluster::RankAssignment& rank) const;
  void on_output(const protocol::Output& output);
  void on_worker_exited(const protocol::WorkerExited& exited);
  void begin_teardown(const std::string& reason);
  void after_attempt();
  void on_signals(const std::vector<int>& signals);
  void on_timers(int64_t now);
  int next_timeout(int64_t now) const;
  void report(int exit_code);
  // output
  void notice(const std::string& text);
  void flush_terminal();
  logs::Source source_of(int rank, int stream) const;
  const std::string& node_name(size_t node) const { return options_.plan.nodes[node].host.name; }

  const LaunchOptions& options_;
  head::AgentPool& pool_;
  std::string job_id_;
  std::string run_dir_;
  cluster::RankPlan gang_plan_;  // the plan the gang and logs see (one rank per node in per-node mode)
  std::vector<int> rank_node_;   // node rank of every gang rank
  std::vector<bool> lost_;       // per node
  Phase phase_ = Phase::picking_port;
  std::optional<Error> start_error_;  // the job could not start (node 0 lost or no port)
  std::string master_addr_;
  int master_port_ = 0;
  int attempt_ = 0;
  std::unique_ptr<Gang> gang_;
  bool tearing_down_ = false;
  int interrupts_ = 0;
  int interrupt_signal_ = 0;
  std::optional<int64_t> kill_at_ms_;  // escalation after Ctrl-C
  std::unique_ptr<logs::RankLogSet> rank_logs_;
  std::unique_ptr<logs::TerminalView> terminal_;
  std::unique_ptr<logs::LogMux> mux_;
  bool log_error_reported_ = false;
  bool terminal_watched_ = false;
  ManifestRecorder manifest_;
};

Launcher::Launcher(const LaunchOptions& options, head::AgentPool& pool)
    : options_(options),
      pool_(pool),
      job_id_(options.job_id.empty() ? new_job_id() : options.job_id),
      run_dir_(options.run_dir.empty() ? "muster-runs/" + job_id_ : options.run_dir),
      gang_plan_(options.per_node ? one_rank_per_node(options.plan) : options.plan),
      lost_(options.plan.nodes.size(), false) {
  rank_node_.resize(static_cast<size_t>(gang_plan_.world_size));
  for (const auto& node : gang_plan_.nodes) {
    for (const auto& rank : node.ranks) rank_node_[static_cast<size_t>(rank.global_rank)] = node.node_rank;
  }
}

// --- output -----------------------------------------------------------------------------------------------

void Launcher::notice(const std::string& text) {
  terminal_->notice("muster: " + text);
  flush_terminal();
}

void Launcher::drain_terminal() {
  if (!terminal_) return;
  while (!terminal_->pending().empty()) {
    std::string bytes(terminal_->pending());
    if (!posix::write_all(kTerminal, bytes)) return;
    terminal_->consumed(bytes.size());
  }
}

void Launcher::flush_terminal() {
  // consumed() may queue more (a "lines not shown" notice, the status line): loop until empty or blocked.
  while (!terminal_->pending().empty()) {
    auto written = posix::write_some(kTerminal, terminal_->pending());
    if (!written || written->would_block) break;
    terminal_->consumed(written->bytes);
  }
  bool want = !terminal_->pending().empty();
  if (want == terminal_watched_) return;
  terminal_watched_ = want;
  if (want) (void)pool_.watch_fd(kTerminal, posix::poll_writable, kTerminalToken);
  else (void)pool_.unwatch_fd(kTerminal);
}

void Launcher::on_watched_fd(uint64_t token, uint32_t events) {
  (void)events;
  if (token == kTerminalToken) flush_terminal();
}

logs::Source Launcher::source_of(int rank, int stream) const {
  const auto& node = gang_plan_.nodes[static_cast<size_t>(rank_node_[static_cast<size_t>(rank)])];
  return logs::Source{rank, rank - node.first_global_rank, node.node_rank, node.host.name, stream};
}

Result<void> Launcher::open_logs() {
  logs::PrefixLayout layout{gang_plan_.world_size, static_cast<int>(gang_plan_.nodes.size()),
                            gang_plan_.max_local_world_size, 0};
  auto prefix = logs::PrefixFormat::parse(options_.prefix_format, layout);
  if (!prefix) return prefix.error();
  auto filter = logs::RankFilter::parse(options_.ranks_shown);
  if (!filter) return filter.error();
  auto rank_logs = logs::RankLogSet::open(run_dir_, gang_plan_.world_size);
  if (!rank_logs) return rank_logs.error();
  rank_logs_ = std::make_unique<logs::RankLogSet>(std::move(*rank_logs));
  logs::TerminalOptions view;
  view.is_tty = options_.is_tty;
  view.color = options_.color;
  view.prefix = *prefix;
  view.ranks = *filter;
  view.log_dir = run_dir_;
  terminal_ = std::make_unique<logs::TerminalView>(std::move(view));
  mux_ = std::make_unique<logs::LogMux>(*rank_logs_, *terminal_);
  return {};
}

// --- the job ----------------------------------------------------------------------------------------------

void Launcher::pick_port() {
  master_addr_ = master_address(options_, &pool_.hello(0));
  phase_ = Phase::picking_port;
  pool_.send(0, protocol::PickPort{static_cast<uint32_t>(attempt_)});
}

std::vector<std::string> Launcher::spawn_env(const cluster::NodePlan& node,
                                              const cluster::RankAssignment& rank) const {
  JobInfo job{job_id_, master_addr_, master_port_, attempt_, options_.max_restarts, 0};
  EnvList env = launch::worker_env(options_, node, rank, job);
  std::vector<std::string> entries;
  for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
  return entries;
}

void Launcher::spawn_attempt() {
  gang_ = std::make_unique<Gang>(gang_plan_);
  tearing_down_ = false;
  phase_ = Phase::running;
  manifest_.attempt_started(attempt_, master_addr_, master_port_);
  for (const auto& node : options_.plan.nodes) {
    auto index = static_cast<size_t>(node.node_rank);
    if (options_.per_node) {
      TemplateValues values{node.node_rank,       static_cast<int>(options_.plan.nodes.size()),
                            master_addr_,         master_port_,
                            static_cast<int>(node.ranks.size()), options_.plan.world_size,
                            job_id_};
      pool_.send(index, protocol::SpawnWorker{static_cast<uint32_t>(node.node_rank),
                                              expand_command(options_.command, values),
                                              spawn_env(node, node.ranks.front()), options_.cwd});
      continue;
    }
    for (const auto& rank : node.ranks) {
      pool_.send(index, protocol::SpawnWorker{static_cast<uint32_t>(rank.global_rank), options_.command,
                                              spawn_env(node, rank), options_.cwd});
    }
  }
}

void Launcher::on_message(size_t node, const protocol::AgentMessage& message) {
  std::visit(
      [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, protocol::Output>) {
          on_output(m);
        } else if constexpr (std::is_same_v<M, protocol::WorkerStarted>) {
          if (gang_ && m.worker < static_cast<uint32_t>(gang_->world_size())) gang_->started(static_cast<int>(m.worker));
        } else if constexpr (std::is_same_v<M, protocol::WorkerExited>) {
          on_worker_exited(m);
        } else if constexpr (std::is_same_v<M, protocol::PortReply>) {
          if (phase_ != Phase::picking_port || m.request != static_cast<uint32_t>(attempt_)) return;
          if (m.port == 0) {
            start_error_ = make_error(ErrorKind::remote, "{}: cannot pick a free port: {}", node_name(node), m.error);
            phase_ = Phase::done;
            return;
          }
          master_port_ = static_cast<int>(m.port);
          spawn_attempt();
        } else if constexpr (std::is_same_v<M, protocol::AgentError>) {
          notice(fmt::format("agent on {} reports: {}", node_name(node), m.message));
        }
      },
      message);
}

void Launcher::on_output(const protocol::Output& output) {
  int rank = static_cast<int>(output.worker);
  if (rank < 0 || rank >= gang_plan_.world_size) return;
  int stream = output.stream == protocol::Stream::err ? logs::kStderr : logs::kStdout;
  auto logged = mux_->output(source_of(rank, stream), output.bytes, posix::monotonic_ms());
  if (!logged && !log_error_reported_) {
    log_error_reported_ = true;
    notice("cannot write the rank logs: " + logged.error().message);
  }
  flush_terminal();
}

void Launcher::on_worker_exited(const protocol::WorkerExited& exited) {
  int rank = static_cast<int>(exited.worker);
  if (!gang_ || rank < 0 || rank >= gang_->world_size()) return;
  int64_t now = posix::monotonic_ms();
  for (int stream : {logs::kStdout, logs::kStderr}) mux_->end_of_stream(source_of(rank, stream), now);
  RankPhase how = exited.how == protocol::ExitHow::exited     ? RankPhase::exited
                  : exited.how == protocol::ExitHow::signaled ? RankPhase::signaled
                                                              : RankPhase::failed_to_start;
  bool root = gang_->ended(rank, how, exited.code, exited.detail, now);
  manifest_.rank_ended(attempt_, rank, gang_->status(rank));
  if (!root) return;
  const auto& node = node_name(static_cast<size_t>(rank_node_[static_cast<size_t>(rank)]));
  begin_teardown(fmt::format("rank {} on {} failed ({}); stopping all ranks", rank, node, exited.detail));
}

void Launcher::on_lost(size_t node, const std::string& why, const std::string& diagnostics) {
  lost_[node] = true;
  std::string reason = fmt::format("{} lost: {}", node_name(node), why);
  if (!diagnostics.empty()) reason += "\n  " + diagnostics;
  if (phase_ == Phase::picking_port && node == 0) {
    start_error_ = make_error(ErrorKind::unreachable, "{}", reason);
    phase_ = Phase::done;
    return;
  }
  if (!gang_) return;
  if (gang_->node_lost(static_cast<int>(node), reason, posix::monotonic_ms())) {
    begin_teardown(reason + "; stopping all ranks");
  } else if (!tearing_down_) {
    notice(reason);
  }
}

void Launcher::begin_teardown(const std::string& reason) {
  if (tearing_down_) return;
  tearing_down_ = true;
  if (gang_) gang_->tearing_down();
  notice(reason);
  pool_.broadcast(protocol::Terminate{static_cast<uint32_t>(options_.grace_ms)});
}

void Launcher::after_attempt() {
  manifest_.attempt_ended(attempt_, gang_->exit_code());
  bool any_lost = std::find(lost_.begin(), lost_.end(), true) != lost_.end();
  if (gang_->failed() && attempt_ < options_.max_restarts && interrupts_ == 0 && !any_lost) {
    ++attempt_;
    notice(fmt::format("restarting the job (restart {} of {}) with a fresh port", attempt_, options_.max_restarts));
    pick_port();
    return;
  }
  phase_ = Phase::done;
}

void Launcher::on_signals(const std::vector<int>& signals) {
  for (int signal : signals) {
    ++interrupts_;
    if (!interrupt_signal_) interrupt_signal_ = signal;
    if (phase_ == Phase::picking_port && !gang_) {
      phase_ = Phase::done;  // nothing started yet: closing the sessions stops the agents
      return;
    }
    if (interrupts_ == 1) {
      // First Ctrl-C: pass SIGINT on (what the user's code expects), SIGKILL after the grace.
      if (gang_) gang_->tearing_down();
      tearing_down_ = true;
      notice(fmt::format("{}: stopping all ranks (again to kill them at once)", posix::signal_name(signal)));
      pool_.broadcast(protocol::Signal{protocol::kAllWorkers, signal == SIGINT ? SIGINT : SIGTERM});
      kill_at_ms_ = posix::monotonic_ms() + options_.grace_ms;
    } else {
      notice("killing all ranks now");
      pool_.broadcast(protocol::Signal{protocol::kAllWorkers, SIGKILL});
      kill_at_ms_.reset();
    }
  }
}

void Launcher::on_timers(int64_t now) {
  if (kill_at_ms_ && now >= *kill_at_ms_) {
    pool_.broadcast(protocol::Signal{protocol::kAllWorkers, SIGKILL});
    kill_at_ms_.reset();
  }
  terminal_->tick(now);
  flush_terminal();
  (void)rank_logs_->flush();  // a killed head loses at most one round of log bytes
}

int Launcher::next_timeout(int64_t now) const {
  int64_t deadline = now + 1000;
  if (kill_at_ms_) deadline = std::min(deadline, *kill_at_ms_);
  return static_cast<int>(std::clamp<int64_t>(deadline - now, 0, 1000));
}

void Launcher::report(int exit_code) {
  if (!gang_) {
    terminal_->notice("muster: interrupted before the job started");
  } else if (interrupts_ > 0) {
    terminal_->notice(fmt::format("\nmuster: interrupted by {}; exit status per rank:\n{}",
                                  posix::signal_name(interrupt_signal_), format_exit_table(*gang_, gang_plan_)));
  } else if (gang_->failed()) {
    std::string text = "\nmuster: the job failed; exit status per rank:\n" + format_exit_table(*gang_, gang_plan_);
    int cause = *gang_->root_cause();
    const auto& tail = mux_->tail(cause).lines();
    if (!tail.empty()) {
      text += fmt::format("\nlast lines of rank {} (full log: {}):\n", cause, rank_logs_->path(cause).string());
      for (const auto& line : tail) text += "  " + line + "\n";
    }
    terminal_->notice(text);
  } else if (!options_.quiet) {
    terminal_->notice(fmt::format("muster: all {} ranks finished; logs in {}", gang_plan_.world_size, run_dir_));
  }
  manifest_.finish(exit_code);
  if (auto written = manifest_.write(run_dir_ + "/manifest.json"); !written) {
    terminal_->notice("muster: " + written.error().message);
  }
}

Result<int> Launcher::run() {
  manifest_.begin(options_, gang_plan_, job_id_, pool_.transport_name());
  if (auto connected = pool_.connect(); !connected) {
    if (connected.error().kind == ErrorKind::interrupted) {
      terminal_->notice("muster: interrupted before the job started");
      return 128 + SIGINT;
    }
    return connected.error();
  }
  for (size_t node = 0; node < pool_.size(); ++node) manifest_.node_connected(static_cast<int>(node), pool_.hello(node));
  manifest_.all_connected();
  manifest_.environment(options_.propagated_env);
  pick_port();
  while (phase_ != Phase::done) {
    auto signals = pool_.poll(next_timeout(posix::monotonic_ms()), *this);
    if (!signals) return signals.error();
    on_signals(*signals);
    on_timers(posix::monotonic_ms());
    if (phase_ == Phase::running && gang_->all_ended()) after_attempt();
  }
  if (start_error_) return *start_error_;
  pool_.shutdown(kShutdownWaitMs);
  int code = interrupts_ > 0 ? 128 + interrupt_signal_ : gang_->exit_code();
  terminal_->finish();
  report(code);
  (void)rank_logs_->flush();
  return code;
}

}  // namespace

Result<int> run_launch(const LaunchOptions& options) {
  posix::SignalBlock signals;
  std::vector<head::PoolNode> nodes;
  for (const auto& node : options.plan.nodes) nodes.push_back({node.host.name, node.host.destination()});
  head::PoolOptions pool_options{options.transport, options.ssh, options.heartbeat_ms, options.heartbeat_timeout_ms,
                                 options.max_parallel_connects};
  auto pool = head::AgentPool::create(std::move(nodes), pool_options);
  if (!pool) return pool.error();
  Launcher launcher(options, **pool);
  if (auto opened = launcher.open_logs(); !opened) return opened.error();
  Result<int> code = 0;
  {
    posix::NonBlockingScope nonblocking(kTerminal);  // a slow terminal must never stall the loop
    code = launcher.run();
  }
  launcher.drain_terminal();
  return code;
}

}  // namespace muster::launch
