// The head's side of `muster launch` (launcher.h; see also gang.h, head/agent_pool.h). The pool's poll() is the
// only place that waits; the gang and the log views are passive.
#include "launch/launcher.h"
#include "launch/flight_dumps.h"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/core.h>

#include "diagnosis/stack_groups.h"
#include "launch/attach_hub.h"
#include "head/agent_pool.h"
#include "launch/command_template.h"
#include "launch/container_launch.h"
#include "launch/failure_report.h"
#include "launch/fd_budget.h"
#include "launch/gang.h"
#include "launch/job_control.h"
#include "launch/master_address.h"
#include "launch/manifest.h"
#include "launch/rank_env.h"
#include "launch/stack_collection.h"
#include "launch/stall_watch.h"
#include "launch/rank_log_files.h"
#include "launch/redact_command.h"
#include "launch/worker_env.h"
#include "logs/log_mux.h"
#include "logs/prefix.h"
#include "logs/rank_filter.h"
#include "logs/rank_log.h"
#include "logs/terminal_output.h"
#include "logs/terminal_view.h"
#include "posix/clock.h"
#include "posix/exit_status.h"
#include "posix/fd.h"
#include "posix/environment.h"
#include "posix/file.h"
#include "posix/limits.h"
#include "posix/poller.h"
#include "posix/proc.h"
#include "posix/signals.h"
#include "posix/terminal.h"
#include "util/random.h"
#include "util/run_dir.h"
#include "util/text.h"

namespace muster::launch {
namespace {

constexpr int kTerminal = 1;
constexpr int kShutdownWaitMs = 3000;                    // agents get this long to exit after Shutdown
constexpr uint64_t kTerminalToken = uint64_t{16} << 32;  // the terminal, watched in the pool's loop
constexpr size_t kTerminalBatchBytes = 128 * 1024;       // on_output writes the terminal at least this much at once
constexpr int64_t kStackRoundMs = 20'000;                // agents answer DumpStacks within this (or not at all)
constexpr int kStalledExitCode = 124;                    // muster ended a stalled job (like timeout(1))
constexpr int kAttachFlushMs = 2000;                     // attached clients get this long to read the end
constexpr std::string_view kFlightDumpNote = "flight-recorder-dump:";  // + file name: a dump's bytes (worker_setup.h)

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
  Launcher(const LaunchOptions& options, head::AgentPool& pool, const LaunchHooks& hooks);
  Result<void> open_logs();
  Result<int> run();
  Result<int> run_job();  // run() without the control channel's opening and closing
  // Writes what the terminal view still holds, blocking (after the terminal is back to blocking mode).
  void drain_terminal();

 private:
  // PoolListener
  void on_message(size_t node, const protocol::AgentMessage& message) override;
  void on_lost(size_t node, const std::string& why, const std::string& diagnostics) override;
  void on_watched_fd(uint64_t token, uint32_t events) override;
  // the job
  Result<void> check_node_limits() const;
  void pick_port();
  void spawn_attempt();
  std::vector<std::string> spawn_env(const cluster::NodePlan& node, const cluster::RankAssignment& rank) const;
  void on_output(const protocol::Output& output);
  void on_worker_exited(const protocol::WorkerExited& exited);
  void begin_teardown(const std::string& reason);
  void after_attempt();
  void on_signals(const std::vector<int>& signals);
  void interrupt(int signal, bool kill_now);
  void check_running();
  void on_timers(int64_t now);
  int next_timeout(int64_t now) const;
  void report(int exit_code);
  // hangs and failures (diagnosis/)
  void open_control();
  void on_control_requests();
  void on_stop_request(int client, bool kill);
  void forget_closed_clients();
  void flush_attached(int exit_code);
  void start_stack_round(bool stall, int client);
  void finish_stack_round(int64_t now);
  void on_note(const protocol::WorkerNote& note);
  void diagnose();
  void save_flight_dump(int rank, const std::string& file_name, const std::string& bytes);
  std::string flight_recorder_dumps() const;
  // output
  void notice(const std::string& text);
  void show(const std::string& text);  // a notice as it is (report), on the terminal and to attached clients
  void flush_terminal();
  logs::Source source_of(int rank, int stream) const;
  const std::string& node_name(size_t node) const { return options_.plan.nodes[node].host.name; }

  const LaunchOptions& options_;
  head::AgentPool& pool_;
  const LaunchHooks& hooks_;
  bool announced_running_ = false;  // hooks_.on_running was called
  bool stop_requested_ = false;     // `muster stop` (rather than a signal) interrupted the job
  bool connecting_ = false;         // in pool_.connect(), which only a signal interrupts
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
  StallWatch stall_;
  std::optional<StackCollection> stacks_;  // the stack round in progress
  bool stall_round_ = false;               // started by the stall detector (not by `muster stack`)
  std::vector<int> stack_clients_;         // control clients waiting for the round
  uint32_t stack_rounds_ = 0;
  bool stalled_ = false;  // the job was ended as stalled
  std::map<int, std::map<std::string, std::string>> notes_;  // rank -> what its node noted (this attempt)
  std::unique_ptr<JobControl> control_;
  std::unique_ptr<AttachHub> attach_;  // with control_
  diagnosis::Diagnosis diagnosis_;
};

Launcher::Launcher(const LaunchOptions& options, head::AgentPool& pool, const LaunchHooks& hooks)
    : options_(options),
      pool_(pool),
      hooks_(hooks),
      job_id_(options.job_id.empty() ? new_job_id() : options.job_id),
      run_dir_(job_run_dir(options.run_dir, job_id_)),
      gang_plan_(options.per_node ? one_rank_per_node(options.plan) : options.plan),
      lost_(options.plan.nodes.size(), false),
      stall_(options.hang_timeout_ms) {
  rank_node_.resize(static_cast<size_t>(gang_plan_.world_size));
  for (const auto& node : gang_plan_.nodes) {
    for (const auto& rank : node.ranks) rank_node_[static_cast<size_t>(rank.global_rank)] = node.node_rank;
  }
}

// --- output -----------------------------------------------------------------------------------------------

void Launcher::notice(const std::string& text) {
  show("muster: " + text);
  flush_terminal();
}

void Launcher::show(const std::string& text) {
  terminal_->notice(text);
  if (attach_) attach_->notice(text);
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
  bool want = logs::write_pending(*terminal_, kTerminal);
  if (want == terminal_watched_) return;
  terminal_watched_ = want;
  if (want) (void)pool_.watch_fd(kTerminal, posix::poll_writable, kTerminalToken);
  else (void)pool_.unwatch_fd(kTerminal);
}

void Launcher::on_watched_fd(uint64_t token, uint32_t events) {
  (void)events;
  if (token == kTerminalToken) flush_terminal();
  if (control_ && control_->owns(token)) {
    control_->on_event(token);
    forget_closed_clients();
    on_control_requests();
  }
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
  if (auto made = make_run_dir(run_dir_); !made) return made.error();
  auto rank_logs = logs::RankLogSet::open(run_dir_, gang_plan_.world_size, private_log_opener());
  if (!rank_logs) return rank_logs.error();
  rank_logs_ = std::make_unique<logs::RankLogSet>(std::move(*rank_logs));
  logs::TerminalOptions view;
  view.is_tty = options_.is_tty;
  view.color = options_.color;
  view.prefix = *prefix;
  view.ranks = options_.detached ? logs::RankFilter::none() : *filter;  // detached: head.log has muster's own
  view.log_dir = run_dir_;
  terminal_ = std::make_unique<logs::TerminalView>(std::move(view));
  mux_ = std::make_unique<logs::LogMux>(*rank_logs_, *terminal_);
  return {};
}

// --- the job ----------------------------------------------------------------------------------------------

Result<void> Launcher::check_node_limits() const {
  std::vector<size_t> children = relay_children(pool_.tree());  // an inner node of the tree holds their connections
  for (const auto& node : gang_plan_.nodes) {
    auto index = static_cast<size_t>(node.node_rank);
    auto fits = check_node_descriptors(node.host.name, static_cast<int>(node.ranks.size()), children.at(index),
                                       pool_.hello(index).max_open_files);
    if (!fits) return fits.error();
  }
  return {};
}

// The first attempt takes the port node 0's agent found free when it started (its Hello): no round trip before the
// workers start. A restart asks node 0 again (PickPort): the port of the attempt that failed may be the reason.
void Launcher::pick_port() {
  master_addr_ = master_address(options_, &pool_.hello(0));
  if (attempt_ == 0 && pool_.hello(0).free_port != 0) {
    master_port_ = static_cast<int>(pool_.hello(0).free_port);
    spawn_attempt();
    return;
  }
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
  stall_.restart(posix::monotonic_ms());
  notes_.clear();
  uint32_t features = options_.diagnostics ? protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder : 0;
  for (const auto& node : options_.plan.nodes) {
    auto index = static_cast<size_t>(node.node_rank);
    if (options_.per_node) {
      TemplateValues values{node.node_rank,       static_cast<int>(options_.plan.nodes.size()),
                            master_addr_,         master_port_,
                            static_cast<int>(node.ranks.size()), options_.plan.world_size,
                            job_id_};
      pool_.send(index, protocol::SpawnWorker{static_cast<uint32_t>(node.node_rank),
                                              expand_command(options_.command, values),
                                              spawn_env(node, node.ranks.front()), options_.cwd, job_id_, features});
      continue;
    }
    for (const auto& rank : node.ranks) {
      pool_.send(index, protocol::SpawnWorker{static_cast<uint32_t>(rank.global_rank), options_.command,
                                              spawn_env(node, rank), options_.cwd, job_id_, features});
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
          if (gang_ && m.worker < static_cast<uint32_t>(gang_->world_size())) {
            gang_->started(static_cast<int>(m.worker));
            check_running();
          }
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
        } else if constexpr (std::is_same_v<M, protocol::WorkerProgress>) {
          stall_.progress(posix::monotonic_ms());
        } else if constexpr (std::is_same_v<M, protocol::WorkerNote>) {
          on_note(m);
        } else if constexpr (std::is_same_v<M, protocol::WorkerStack>) {
          if (stacks_) stacks_->add(m);
        }
      },
      message);
}

void Launcher::on_output(const protocol::Output& output) {
  int rank = static_cast<int>(output.worker);
  if (rank < 0 || rank >= gang_plan_.world_size) return;
  int stream = output.stream == protocol::Stream::err ? logs::kStderr : logs::kStdout;
  int64_t now = posix::monotonic_ms();
  stall_.progress(now);
  auto logged = mux_->output(source_of(rank, stream), output.bytes, now);
  if (!logged && !log_error_reported_) {
    log_error_reported_ = true;
    notice("cannot write the rank logs: " + logged.error().message);
  }
  // Written once per loop round (on_timers), or sooner when a round brings more than kTerminalBatchBytes: an
  // Output frame is often one 4 KiB pipe read, and a write per frame was 50,000 writes for 4 x 50 MB of lines.
  // The batch stays far below the queue's limit (TerminalView's max_pending_bytes), which drops lines only for
  // a terminal that cannot keep up.
  if (terminal_->pending().size() >= kTerminalBatchBytes) flush_terminal();
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
  if (stacks_) {
    for (const auto& rank : gang_plan_.nodes[node].ranks) stacks_->gone(rank.global_rank, "its node was lost");
  }
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
  manifest_.attempt_ended(attempt_, stalled_ ? kStalledExitCode : gang_->exit_code(), gang_->root_cause());
  bool any_lost = std::find(lost_.begin(), lost_.end(), true) != lost_.end();
  if ((gang_->failed() || stalled_) && attempt_ < options_.max_restarts && interrupts_ == 0 && !any_lost) {
    ++attempt_;
    stalled_ = false;
    notice(fmt::format("restarting the job (restart {} of {}) with a fresh port", attempt_, options_.max_restarts));
    pick_port();
    return;
  }
  phase_ = Phase::done;
}

void Launcher::on_signals(const std::vector<int>& signals) {
  for (int signal : signals) interrupt(signal, false);
}

// Ctrl-C, a signal, or `muster stop`: the first asks every rank to stop and kills them after the grace, a second
// (or `kill_now`) kills them at once.
void Launcher::interrupt(int signal, bool kill_now) {
  ++interrupts_;
  if (!interrupt_signal_) interrupt_signal_ = signal;
  if (phase_ == Phase::picking_port && !gang_) {
    phase_ = Phase::done;  // nothing started yet: closing the sessions stops the agents
    return;
  }
  std::string who = stop_requested_ ? std::string("muster stop") : posix::signal_name(signal);
  if (interrupts_ == 1 && !kill_now) {
    // First Ctrl-C: pass SIGINT on (what the user's code expects), SIGKILL after the grace.
    if (gang_) gang_->tearing_down();
    tearing_down_ = true;
    notice(fmt::format("{}: stopping all ranks (again to kill them at once)", who));
    pool_.broadcast(protocol::Signal{protocol::kAllWorkers, signal == SIGINT ? SIGINT : SIGTERM});
    kill_at_ms_ = posix::monotonic_ms() + options_.grace_ms;
  } else {
    if (gang_) gang_->tearing_down();
    tearing_down_ = true;
    notice(fmt::format("{}: killing all ranks now", who));
    pool_.broadcast(protocol::Signal{protocol::kAllWorkers, SIGKILL});
    kill_at_ms_.reset();
  }
}

// The first attempt's ranks have all started (none is pending) while the job runs: tell whoever waits for that
// (`launch --detach`'s parent) once.
void Launcher::check_running() {
  if (announced_running_ || !hooks_.on_running || tearing_down_ || attempt_ != 0) return;
  for (int rank = 0; rank < gang_->world_size(); ++rank) {
    if (gang_->status(rank).phase == RankPhase::pending) return;
  }
  announced_running_ = true;
  hooks_.on_running(job_id_, control_ ? control_->record().run_dir : run_dir_);
}

void Launcher::on_timers(int64_t now) {
  if (stacks_ && stacks_->complete(now)) finish_stack_round(now);
  if (phase_ == Phase::running && !tearing_down_ && !stacks_ && stall_.stalled(now)) start_stack_round(true, -1);
  if (kill_at_ms_ && now >= *kill_at_ms_) {
    pool_.broadcast(protocol::Signal{protocol::kAllWorkers, SIGKILL});
    kill_at_ms_.reset();
  }
  if (attach_) {
    for (const auto& text : attach_->take_notices()) notice(text);
  }
  terminal_->tick(now);
  flush_terminal();
  (void)rank_logs_->flush();  // a killed head loses at most one round of log bytes
}

int Launcher::next_timeout(int64_t now) const {
  int64_t deadline = now + 1000;
  if (kill_at_ms_) deadline = std::min(deadline, *kill_at_ms_);
  // Only while a stall can still be acted on (on_timers): past its deadline during a teardown or a stack round,
  // it would wake the loop at once, round after round.
  if (stall_.enabled() && phase_ == Phase::running && !tearing_down_ && !stacks_) {
    deadline = std::min(deadline, stall_.deadline());
  }
  if (stacks_) deadline = std::min(deadline, stacks_->deadline());
  return static_cast<int>(std::clamp<int64_t>(deadline - now, 0, 1000));
}

void Launcher::report(int exit_code) {
  if (!gang_) {
    show("muster: interrupted before the job started");
  } else if (stalled_) {
    show(fmt::format("\nmuster: the job stalled and was stopped (exit {}); exit status per rank:\n{}",
                                  kStalledExitCode, format_exit_table(*gang_, gang_plan_)) +
         flight_recorder_dumps());
  } else if (interrupts_ > 0) {
    show(fmt::format("\nmuster: {}; exit status per rank:\n{}",
                     stop_requested_ ? std::string("stopped by muster stop")
                                     : "interrupted by " + std::string(posix::signal_name(interrupt_signal_)),
                     format_exit_table(*gang_, gang_plan_)));
  } else if (gang_->failed()) {
    std::string text = "\nmuster: the job failed; exit status per rank:\n" + format_exit_table(*gang_, gang_plan_);
    int cause = *gang_->root_cause();
    const auto tail = mux_->tail(cause).lines();
    if (!tail.empty()) {
      text += fmt::format("\nlast lines of rank {} (full log: {}):\n", cause, rank_logs_->path(cause).string());
      for (const auto& line : tail) text += "  " + line + "\n";
    }
    if (diagnosis_.entry) text += "\n" + diagnosis::format_diagnosis(diagnosis_);
    text += flight_recorder_dumps();
    show(text);
  } else if (!options_.quiet) {
    show(fmt::format("muster: all {} ranks finished; logs in {}", gang_plan_.world_size, run_dir_));
  }
  manifest_.diagnosis(diagnosis::diagnosis_json(diagnosis_));
  manifest_.finish(exit_code);
  if (control_) control_->finish(exit_code);
  if (auto written = manifest_.write(run_dir_ + "/manifest.json"); !written) {
    show("muster: " + written.error().message);
  }
}

// --- hangs and failures -----------------------------------------------------------------------------------

void Launcher::open_control() {
  head::JobRecord record;
  record.job_id = job_id_;
  record.run_dir = std::filesystem::absolute(run_dir_).lexically_normal().string();
  record.pid = posix::current_pid();
  record.pid_start = posix::process_start_time(record.pid).value_or(0);
  record.nodes = static_cast<int>(options_.plan.nodes.size());
  record.ranks = gang_plan_.world_size;
  for (const auto& word : redact_command(options_.command)) record.command += (record.command.empty() ? "" : " ") + word;
  for (const auto& node : gang_plan_.nodes) {
    record.layout.push_back({node.host.name, node.first_global_rank, static_cast<int>(node.ranks.size())});
  }
  record.detached = options_.detached;
  auto control = JobControl::open(std::move(record), pool_);
  if (!control) {
    notice("no control socket for this job (muster stack, attach and stop will not reach it): " +
           control.error().message);
    return;
  }
  control_ = std::move(*control);
  nlohmann::json hello{{"job_id", job_id_},
                       {"run_dir", control_->record().run_dir},
                       {"prefix", options_.prefix_format},
                       {"world_size", gang_plan_.world_size},
                       {"nodes", static_cast<int>(gang_plan_.nodes.size())},
                       {"max_local_world_size", gang_plan_.max_local_world_size}};
  attach_ = std::make_unique<AttachHub>(*control_, std::move(hello));
  mux_->set_tap(attach_.get());
}

void Launcher::forget_closed_clients() {
  for (int client : control_->take_closed()) {
    attach_->forget(client);
    stack_clients_.erase(std::remove(stack_clients_.begin(), stack_clients_.end(), client), stack_clients_.end());
  }
}

void Launcher::on_stop_request(int client, bool kill) {
  bool again = interrupts_ > 0;
  control_->reply(client, {{"ok", true}, {"killing", kill || again}, {"grace_s", options_.grace_ms / 1000.0}});
  if (!again) stop_requested_ = true;
  if (connecting_) {
    // Nothing runs yet and the pool is still connecting: stop that as Ctrl-C would (the signal is blocked until
    // the pool's wait, which then ends the connect as interrupted).
    (void)posix::signal_process(posix::current_pid(), SIGINT);
    return;
  }
  interrupt(SIGINT, kill);
}

// The job is over: attached clients get the end and a bounded time to read it (the loop still runs the socket).
void Launcher::flush_attached(int exit_code) {
  if (!attach_) return;
  attach_->end(exit_code);
  int64_t deadline = posix::monotonic_ms() + kAttachFlushMs;
  while (control_->has_pending_output() && posix::monotonic_ms() < deadline) {
    auto signals = pool_.poll(static_cast<int>(std::max<int64_t>(deadline - posix::monotonic_ms(), 0)), *this);
    if (!signals || !signals->empty()) break;
  }
  mux_->set_tap(nullptr);
}

void Launcher::on_control_requests() {
  for (auto& request : control_->take_requests()) {
    std::string op = request.body.value("op", "");
    if (op == "stack") {
      if (phase_ != Phase::running || !gang_) {
        control_->reply(request.client, {{"ok", false}, {"error", "the job's ranks are not running yet"}});
      } else if (stacks_) {
        stack_clients_.push_back(request.client);
      } else {
        start_stack_round(false, request.client);
      }
    } else if (op == "attach") {
      attach_->attach(request.client);
    } else if (op == "stop") {
      on_stop_request(request.client, request.body.value("kill", false));
    } else if (op == "status") {
      control_->reply(request.client, {{"ok", true}, {"job_id", job_id_}, {"run_dir", control_->record().run_dir},
                                       {"attempt", attempt_}, {"ranks", gang_plan_.world_size},
                                       {"running", phase_ == Phase::running && !tearing_down_}});
    } else {
      control_->reply(request.client, {{"ok", false}, {"error", "unknown op '" + op + "'"}});
    }
  }
}

void Launcher::start_stack_round(bool stall, int client) {
  int64_t now = posix::monotonic_ms();
  std::map<int, std::string> ranks;
  for (const auto& node : gang_plan_.nodes) {
    for (const auto& rank : node.ranks) {
      RankPhase phase = gang_->status(rank.global_rank).phase;
      if (phase == RankPhase::running || phase == RankPhase::pending) ranks[rank.global_rank] = node.host.name;
    }
  }
  if (client >= 0) stack_clients_.push_back(client);
  stall_round_ = stall;
  uint32_t request = ++stack_rounds_;
  if (stall) {
    notice(fmt::format("no rank has made progress for {} s (--hang-timeout): taking every rank's stack",
                       stall_.silent_ms(now) / 1000));
  }
  stacks_.emplace(request, std::move(ranks), now + kStackRoundMs);
  pool_.broadcast(protocol::DumpStacks{request, protocol::kAllWorkers});
}

void Launcher::finish_stack_round(int64_t now) {
  auto stacks = stacks_->result();
  auto groups = diagnosis::group_stacks(stacks);
  std::string summary = diagnosis::format_stack_summary(groups);
  std::string file = fmt::format("{}/stacks-{}.txt", run_dir_, stacks_->request());
  std::string heading = stall_round_ ? fmt::format("muster: stall: no progress on any rank for {} s\n",
                                                   stall_.silent_ms(now) / 1000)
                                     : std::string("muster stack\n");
  auto written = posix::write_file_atomic(file, heading + summary + "\n\n" + diagnosis::format_full_stacks(stacks), 0600);
  std::string where = written ? file : "(not saved: " + written.error().message + ")";
  for (int client : stack_clients_) {
    control_->reply(client, {{"ok", true}, {"summary", summary}, {"file", where},
                             {"stacks", diagnosis::format_full_stacks(stacks)}});
  }
  stack_clients_.clear();
  bool stall = stall_round_;
  stacks_.reset();
  if (!stall) return;
  manifest_.hang(stall_.silent_ms(now), where, groups);
  notice(fmt::format("every rank's stack, grouped by where the main thread is (all of them: {}):\n{}", where, summary));
  if (options_.kill_on_hang) {
    stalled_ = true;
    begin_teardown(fmt::format("the job stalled (no progress for {} s); stopping all ranks", stall_.silent_ms(now) / 1000));
  } else {
    stall_.restart(now);  // --on-hang dump: the job goes on; another stall is another full timeout away
  }
}

void Launcher::on_note(const protocol::WorkerNote& note) {
  int rank = static_cast<int>(note.worker);
  if (note.key.starts_with(kFlightDumpNote)) {
    save_flight_dump(rank, note.key.substr(kFlightDumpNote.size()), note.text);
    return;
  }
  notes_[rank][note.key] = note.text;
  manifest_.note(attempt_, rank, note.key, note.text);
  if (note.key == "error-file") {
    (void)posix::write_file_atomic(fmt::format("{}/error-{}.json", run_dir_, rank), note.text, 0600);
  }
}

// A flight recorder dump's bytes, from the rank's node: into <run dir>/flight-recorder/ under torch's file name
// (nccl_trace_rank_<r>), where torch's fr_trace reads a whole job; the note and the manifest get its path.
void Launcher::save_flight_dump(int rank, const std::string& file_name, const std::string& bytes) {
  std::string name;
  for (char c : file_name) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ? c : '_';
  if (name.empty() || name.starts_with('.')) name = "nccl_trace_" + name;
  std::string dir = run_dir_ + "/" + std::string(kFlightDumpDir);
  std::string path = dir + "/" + name;
  auto made = posix::make_dir_with_parents(dir, 0700);
  auto written = made ? posix::write_file_atomic(path, bytes, 0600) : Result<void>(made.error());
  if (!written) {
    notice(fmt::format("cannot save rank {}'s flight recorder dump: {}", rank, written.error().message));
    return;
  }
  std::string& saved = notes_[rank]["flight-recorder-saved"];
  saved += (saved.empty() ? "" : "\n") + std::string(kFlightDumpDir) + "/" + name;
  manifest_.note(attempt_, rank, "flight-recorder-saved", saved);
}

// PyTorch's NCCL flight recorder dumps of the ranks (flight_dumps.h).
std::string Launcher::flight_recorder_dumps() const {
  return format_flight_dumps(notes_, [&](int rank) {
    return gang_plan_.nodes[static_cast<size_t>(rank_node_[static_cast<size_t>(rank)])].host.name;
  }, run_dir_);
}

void Launcher::diagnose() {
  (void)rank_logs_->flush();
  std::vector<std::string> env;
  for (const auto& [name, value] : options_.propagated_env) env.push_back(name + "=" + value);
  FailureEvidence evidence{rank_ends(*gang_, gang_plan_), notes_, run_dir_, options_.python, std::move(env)};
  if (control_) control_->pause();  // the probes run their own loop on the pool
  diagnosis_ = diagnose_failure(&pool_, options_.catalogue, evidence);
  if (control_) control_->resume();
}

Result<int> Launcher::run() {
  manifest_.begin(options_, gang_plan_, job_id_, pool_.transport_name());
  open_control();
  auto code = run_job();
  if (!code && control_) control_->finish_unstarted(code.error().message);
  if (code) flush_attached(*code);
  return code;
}

Result<int> Launcher::run_job() {
  connecting_ = true;
  auto connected = pool_.connect(this);
  connecting_ = false;
  if (!connected) {
    if (connected.error().kind == ErrorKind::interrupted) {
      terminal_->notice("muster: interrupted before the job started");
      if (control_) control_->finish(128 + SIGINT);
      return 128 + SIGINT;
    }
    return connected.error();
  }
  for (size_t node = 0; node < pool_.size(); ++node) manifest_.node_connected(static_cast<int>(node), pool_.hello(node));
  if (auto fits = check_node_limits(); !fits) return fits.error();  // before any worker starts
  for (const auto& note : pool_.notes()) notice(note);
  manifest_.all_connected(pool_.connections(), pool_.depth(), pool_.notes());
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
  if (gang_ && gang_->failed() && interrupts_ == 0 && !stalled_) diagnose();
  pool_.shutdown(kShutdownWaitMs, this);
  int code = interrupts_ > 0 ? 128 + interrupt_signal_ : stalled_ ? kStalledExitCode : gang_->exit_code();
  terminal_->finish();
  (void)rank_logs_->flush();  // before the record says the job ended: `muster logs -f` then reads everything
  report(code);
  return code;
}

}  // namespace

Result<int> run_launch(const LaunchOptions& options, const LaunchHooks& hooks) {
  posix::SignalBlock signals;
  std::vector<head::PoolNode> nodes;
  for (const auto& node : options.plan.nodes) {
    nodes.push_back({node.host.name, node.host.destination(),
                     options.container ? container_agent_args(*options.container, options.job_id, node.node_rank)
                                       : std::vector<std::string>{}});
  }
  head::PoolOptions pool_options;
  pool_options.transport = options.transport;
  pool_options.ssh = options.ssh;
  pool_options.heartbeat_ms = options.heartbeat_ms;
  pool_options.heartbeat_timeout_ms = options.heartbeat_timeout_ms;
  pool_options.max_parallel_connects = options.max_parallel_connects;
  pool_options.fanout = options.fanout;
  pool_options.virtual_nodes = options.virtual_nodes;
  auto pool = head::AgentPool::create(std::move(nodes), pool_options);
  if (!pool) return pool.error();
  // Before any agent starts: the head holds a connection to each node it starts itself (the pool's tree).
  auto limit = posix::open_file_limit();
  if (auto fits = check_head_descriptors(static_cast<int>(options.plan.nodes.size()), head_connections((*pool)->tree()),
                                         options.plan.world_size, limit.soft, limit.hard);
      !fits) {
    return fits.error();
  }
  Launcher launcher(options, **pool, hooks);
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
