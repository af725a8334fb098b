// The head's event loop for `muster launch` (see launch_options.h, gang.h, agent_session.h).
//
// Phases of one launch:  connect all agents -> pick MASTER_PORT on node 0 -> spawn every rank -> run
// -> (first failure: terminate everyone) -> all ranks ended -> [restart] -> shutdown agents -> report.
// The loop is the only place that waits; sessions, the gang and the log views are passive.
#include <fmt/chrono.h>
#include <fmt/core.h>

#include <csignal>
#include <map>
#include <memory>
#include <random>

#include "launch/agent_session.h"
#include "launch/command_template.h"
#include "launch/gang.h"
#include "launch/launch_options.h"
#include "launch/manifest.h"
#include "launch/rank_env.h"
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
#include "protocol/preamble.h"
#include "util/version.h"

namespace muster::launch {
namespace {

constexpr int kTerminal = 1;
constexpr int64_t kShutdownWaitMs = 3000;      // agents get this long to exit after Shutdown
constexpr int64_t kAnsweredConnectMs = 60'000;  // a node that answered has this long to start its agent

enum class Phase { connecting, picking_port, running, shutting_down, done };

// Poller tokens: kind in the high 32 bits, node rank in the low ones.
enum Kind : uint64_t { kAgentOut = 1, kAgentErr = 2, kAgentIn = 3, kTerminalOut = 4 };
uint64_t token(Kind kind, size_t node) {
  return (static_cast<uint64_t>(kind) << 32) | node;
}

std::string random_hex(int digits) {
  std::random_device device;
  std::string text;
  while (static_cast<int>(text.size()) < digits) text += fmt::format("{:08x}", device());
  return text.substr(0, static_cast<size_t>(digits));
}

std::string make_job_id() {
  auto now = std::chrono::system_clock::now();
  return fmt::format("{:%Y%m%d-%H%M%S}-{}", fmt::gmtime(std::chrono::system_clock::to_time_t(now)),
                     random_hex(6));
}

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

struct SessionSlot {
  std::unique_ptr<AgentSession> session;
  bool out_registered = false, err_registered = false, in_registered = false;
  bool lost = false;
};

class Launcher {
 public:
  Launcher(const LaunchOptions& options, posix::Poller poller, transport::SelfBinary binary,
           std::unique_ptr<transport::Transport> transport);
  Result<int> run();
  // Writes what the terminal view still holds, blocking (after the terminal is back to blocking mode).
  void drain_terminal();

 private:
  // connecting
  void start_more_agents();
  Result<void> check_connections(int64_t now);
  // running
  void pick_port();
  void spawn_attempt();
  std::vector<std::string> worker_env(const cluster::NodePlan& node,
                                      const cluster::RankAssignment& rank) const;
  void on_message(size_t node, const protocol::AgentMessage& message);
  void on_output(const protocol::Output& output);
  void on_worker_exited(size_t node, const protocol::WorkerExited& exited);
  void on_node_lost(size_t node, const std::string& why);
  void begin_teardown(const std::string& reason);
  void after_attempt();
  void begin_shutdown();
  // plumbing
  void service_session(size_t node, uint64_t kind);
  void sync_registrations(size_t node);
  void on_signals();
  void on_timers(int64_t now);
  void notice(const std::string& text);
  void flush_terminal();
  int next_timeout(int64_t now) const;
  logs::Source source_of(int rank, int stream) const;
  void report(int exit_code);

  const LaunchOptions& options_;
  posix::Poller poller_;
  transport::SelfBinary binary_;
  std::unique_ptr<transport::Transport> transport_;
  std::string job_id_;
  std::string run_dir_;
  std::string nonce_ = random_hex(16);
  cluster::RankPlan gang_plan_;  // the plan the gang and logs see (one rank per node in per-node mode)
  std::vector<int> rank_node_;   // node rank of every gang rank
  std::vector<SessionSlot> slots_;
  size_t started_agents_ = 0;
  Phase phase_ = Phase::connecting;
  std::optional<Error> connect_error_;
  std::string master_addr_;
  int master_port_ = 0;
  int attempt_ = 0;
  std::unique_ptr<Gang> gang_;
  bool tearing_down_ = false;
  int interrupts_ = 0;
  int interrupt_signal_ = 0;
  std::optional<int64_t> kill_at_ms_;  // escalation after Ctrl-C
  int64_t next_heartbeat_ms_ = 0;
  uint64_t heartbeat_seq_ = 0;
  int64_t shutdown_deadline_ms_ = 0;
  // logs
  std::unique_ptr<logs::RankLogSet> rank_logs_;
  std::unique_ptr<logs::TerminalView> terminal_;
  std::unique_ptr<logs::LogMux> mux_;
  bool log_error_reported_ = false;
  bool terminal_registered_ = false;
  ManifestRecorder manifest_;
};

Launcher::Launcher(const LaunchOptions& options, posix::Poller poller, transport::SelfBinary binary,
                   std::unique_ptr<transport::Transport> transport)
    : options_(options),
      poller_(std::move(poller)),
      binary_(std::move(binary)),
      transport_(std::move(transport)),
      job_id_(options.job_id.empty() ? make_job_id() : options.job_id),
      run_dir_(options.run_dir.empty() ? "muster-runs/" + job_id_ : options.run_dir),
      gang_plan_(options.per_node ? one_rank_per_node(options.plan) : options.plan),
      slots_(options.plan.nodes.size()) {
  rank_node_.resize(static_cast<size_t>(gang_plan_.world_size));
  for (const auto& node : gang_plan_.nodes) {
    for (const auto& rank : node.ranks) rank_node_[static_cast<size_t>(rank.global_rank)] = node.node_rank;
  }
}

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
  if (want != terminal_registered_) {
    terminal_registered_ = want;
    if (want)
      (void)poller_.add(kTerminal, posix::poll_writable, token(kTerminalOut, 0));
    else
      (void)poller_.remove(kTerminal);
  }
}

logs::Source Launcher::source_of(int rank, int stream) const {
  const auto& node = gang_plan_.nodes[static_cast<size_t>(rank_node_[static_cast<size_t>(rank)])];
  int local = rank - node.first_global_rank;
  return logs::Source{rank, local, node.node_rank, node.host.name, stream};
}

// --- connecting -------------------------------------------------------------------------------------------

void Launcher::start_more_agents() {
  size_t connecting = 0;
  for (size_t i = 0; i < started_agents_; ++i) {
    if (slots_[i].session->state() == AgentSession::State::connecting) ++connecting;
  }
  int64_t now = posix::monotonic_ms();
  while (started_agents_ < slots_.size() &&
         connecting < static_cast<size_t>(options_.max_parallel_connects)) {
    size_t node = started_agents_++;
    const auto& host = options_.plan.nodes[node].host;
    transport::AgentTarget target{host.name,
                                  host.destination(),
                                  {"--nonce", nonce_, "--heartbeat-ms", std::to_string(options_.heartbeat_ms),
                                   "--heartbeat-timeout-ms", std::to_string(options_.heartbeat_timeout_ms)}};
    auto process = transport_->start(target);
    if (!process) {
      connect_error_ = make_error(ErrorKind::unreachable, "{}: {}", host.name, process.error().message);
      return;
    }
    slots_[node].session =
        std::make_unique<AgentSession>(host.name, std::move(*process), nonce_, &binary_, now);
    sync_registrations(node);
    ++connecting;
  }
}

Result<void> Launcher::check_connections(int64_t now) {
  if (connect_error_) return *connect_error_;
  // Silent nodes get the connect timeout (+0.5 s for ssh to say why); a node that answered (shell noise, an
  // upload in progress) gets longer, but not forever.
  int64_t silent_limit = options_.ssh.connect_timeout_s * 1000LL + 500;
  int64_t answered_limit = std::max<int64_t>(kAnsweredConnectMs, silent_limit);
  for (size_t node = 0; node < started_agents_; ++node) {
    auto& session = *slots_[node].session;
    bool closed = session.state() == AgentSession::State::closed;
    int64_t limit = session.heard_anything() ? answered_limit : silent_limit;
    bool late = session.state() == AgentSession::State::connecting && now - session.started_ms() > limit;
    if (!closed && !late) continue;
    std::string why = closed ? session.failure() : fmt::format("no answer within {:.1f} s", limit / 1000.0);
    std::string details = session.diagnostics();
    return make_error(ErrorKind::unreachable, "cannot start the agent on {}: {}{}{}", session.node(), why,
                      details.empty() ? "" : "\n  ", details);
  }
  return {};
}

// --- running ----------------------------------------------------------------------------------------------

void Launcher::pick_port() {
  const auto& hello = slots_[0].session->hello();
  if (!options_.master_addr.empty()) {
    master_addr_ = options_.master_addr;
  } else if (options_.transport == TransportKind::local) {
    master_addr_ = "127.0.0.1";
  } else if (!hello.ssh_addr.empty()) {
    master_addr_ = hello.ssh_addr;
  } else {
    master_addr_ = hello.addresses.empty() ? options_.plan.nodes[0].host.name : hello.addresses[0];
  }
  phase_ = Phase::picking_port;
  slots_[0].session->send(protocol::PickPort{static_cast<uint32_t>(attempt_)});
}

std::vector<std::string> Launcher::worker_env(const cluster::NodePlan& node,
                                              const cluster::RankAssignment& rank) const {
  EnvList env = propagated_env(options_.head_env, options_.env_policy).value();  // validated by the CLI
  JobInfo job{job_id_, master_addr_, master_port_, attempt_, options_.max_restarts, omp_num_threads_setting(env)};
  EnvList muster_env = options_.per_node ? per_node_rank_env(options_.plan, node, job)
                                         : rank_env(options_.plan, node, rank, job);
  auto devices = options_.devices_filtered ? DeviceSelection::filtered : DeviceSelection::whole_node;
  muster_env = overlay_env(muster_env, per_node_env(node, devices));
  env = overlay_env(env, muster_env);
  bool user_buffering =
      std::any_of(env.begin(), env.end(), [](auto& kv) { return kv.first == "PYTHONUNBUFFERED"; });
  if (!user_buffering) env.emplace_back("PYTHONUNBUFFERED", "1");  // logs arrive as they are written
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
    auto& session = *slots_[static_cast<size_t>(node.node_rank)].session;
    std::string cwd = options_.cwd;
    if (options_.per_node) {
      TemplateValues values{
          node.node_rank, static_cast<int>(options_.plan.nodes.size()), master_addr_,
          master_port_,   static_cast<int>(node.ranks.size()),          options_.plan.world_size,
          job_id_};
      session.send(protocol::SpawnWorker{static_cast<uint32_t>(node.node_rank), expand_command(options_.command, values),
                                         worker_env(node, node.ranks.front()), cwd});
      continue;
    }
    for (const auto& rank : node.ranks) {
      session.send(protocol::SpawnWorker{static_cast<uint32_t>(rank.global_rank), options_.command,
                                         worker_env(node, rank), cwd});
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
          if (gang_ && m.worker < static_cast<uint32_t>(gang_->world_size()))
            gang_->started(static_cast<int>(m.worker));
        } else if constexpr (std::is_same_v<M, protocol::WorkerExited>) {
          on_worker_exited(node, m);
        } else if constexpr (std::is_same_v<M, protocol::PortReply>) {
          if (phase_ != Phase::picking_port) return;
          if (m.port == 0) return on_node_lost(node, "cannot pick a free port: " + m.error);
          master_port_ = static_cast<int>(m.port);
          spawn_attempt();
        } else if constexpr (std::is_same_v<M, protocol::AgentError>) {
          notice(fmt::format("agent on {} reports: {}", options_.plan.nodes[node].host.name, m.message));
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

void Launcher::on_worker_exited(size_t node, const protocol::WorkerExited& exited) {
  (void)node;
  int rank = static_cast<int>(exited.worker);
  if (!gang_ || rank < 0 || rank >= gang_->world_size()) return;
  for (int stream : {logs::kStdout, logs::kStderr}) mux_->end_of_stream(source_of(rank, stream), posix::monotonic_ms());
  RankPhase how = exited.how == protocol::ExitHow::exited     ? RankPhase::exited
                  : exited.how == protocol::ExitHow::signaled ? RankPhase::signaled
                                                              : RankPhase::failed_to_start;
  bool root = gang_->ended(rank, how, exited.code, exited.detail, posix::monotonic_ms());
  manifest_.rank_ended(attempt_, rank, gang_->status(rank));
  if (root) {
    const auto& node_name =
        options_.plan.nodes[static_cast<size_t>(rank_node_[static_cast<size_t>(rank)])].host.name;
    begin_teardown(
        fmt::format("rank {} on {} failed ({}); stopping all ranks", rank, node_name, exited.detail));
  }
}

void Launcher::on_node_lost(size_t node, const std::string& why) {
  auto& slot = slots_[node];
  if (slot.lost) return;
  slot.lost = true;
  const auto& name = options_.plan.nodes[node].host.name;
  std::string details = slot.session->diagnostics();
  slot.session->close(why);
  slot.session->kill_transport(SIGTERM);
  sync_registrations(node);
  std::string reason = fmt::format("{} lost: {}", name, why);
  if (phase_ == Phase::connecting || phase_ == Phase::picking_port) {
    connect_error_ =
        make_error(ErrorKind::unreachable, "{}{}{}", reason, details.empty() ? "" : "\n  ", details);
    return;
  }
  if (!gang_) return;
  bool root = gang_->node_lost(static_cast<int>(node), reason, posix::monotonic_ms());
  if (root)
    begin_teardown(reason + "; stopping all ranks");
  else if (!tearing_down_ || !details.empty())
    notice(reason);
}

void Launcher::begin_teardown(const std::string& reason) {
  if (tearing_down_) return;
  tearing_down_ = true;
  if (gang_) gang_->tearing_down();
  notice(reason);
  for (auto& slot : slots_) {
    if (slot.session) slot.session->send(protocol::Terminate{static_cast<uint32_t>(options_.grace_ms)});
  }
}

void Launcher::after_attempt() {
  bool any_lost = std::any_of(slots_.begin(), slots_.end(), [](const SessionSlot& s) { return s.lost; });
  manifest_.attempt_ended(attempt_, gang_->exit_code());
  if (gang_->failed() && attempt_ < options_.max_restarts && interrupts_ == 0 && !any_lost) {
    ++attempt_;
    notice(fmt::format("restarting the job (restart {} of {}) with a fresh port", attempt_,
                       options_.max_restarts));
    pick_port();
    return;
  }
  begin_shutdown();
}

void Launcher::begin_shutdown() {
  phase_ = Phase::shutting_down;
  shutdown_deadline_ms_ = posix::monotonic_ms() + kShutdownWaitMs;
  for (auto& slot : slots_) {
    if (slot.session) slot.session->send(protocol::Shutdown{});
  }
}

// --- plumbing ---------------------------------------------------------------------------------------------

void Launcher::sync_registrations(size_t node) {
  auto& slot = slots_[node];
  auto& session = *slot.session;
  auto sync = [&](bool& registered, int fd, bool wanted, uint32_t events, Kind kind) {
    if (fd < 0) {
      registered = false;  // closing the fd removed it from epoll
      return;
    }
    if (wanted == registered) return;
    registered = wanted;
    if (wanted)
      (void)poller_.add(fd, events, token(kind, node));
    else
      (void)poller_.remove(fd);
  };
  sync(slot.out_registered, session.stdout_fd(), true, posix::poll_readable, kAgentOut);
  sync(slot.err_registered, session.stderr_fd(), true, posix::poll_readable, kAgentErr);
  sync(slot.in_registered, session.stdin_fd(), session.wants_write(), posix::poll_writable, kAgentIn);
}

void Launcher::service_session(size_t node, uint64_t kind) {
  auto& slot = slots_[node];
  if (!slot.session) return;
  int64_t now = posix::monotonic_ms();
  if (kind == kAgentOut) slot.session->on_stdout_readable(now);
  if (kind == kAgentErr) slot.session->on_stderr_readable();
  if (kind == kAgentIn) slot.session->on_stdin_writable();
  for (const auto& message : slot.session->take_messages()) on_message(node, message);
  if (slot.session->state() == AgentSession::State::closed && !slot.lost && phase_ != Phase::shutting_down) {
    on_node_lost(node, slot.session->failure());
  }
  sync_registrations(node);
}

void Launcher::on_signals() {
  for (int signal : posix::take_pending_signals()) {
    if (signal == SIGCHLD) continue;
    ++interrupts_;
    if (!interrupt_signal_) interrupt_signal_ = signal;
    if (phase_ == Phase::connecting || phase_ == Phase::picking_port) {
      phase_ = Phase::done;  // nothing started yet: closing the sessions stops the agents
      return;
    }
    if (interrupts_ == 1) {
      // First Ctrl-C: pass SIGINT on (what the user's code expects), SIGKILL after the grace.
      if (gang_) gang_->tearing_down();
      tearing_down_ = true;
      notice(fmt::format("{}: stopping all ranks (again to kill them at once)", posix::signal_name(signal)));
      for (auto& slot : slots_) {
        if (slot.session)
          slot.session->send(protocol::Signal{protocol::kAllWorkers, signal == SIGINT ? SIGINT : SIGTERM});
      }
      kill_at_ms_ = posix::monotonic_ms() + options_.grace_ms;
    } else {
      notice("killing all ranks now");
      for (auto& slot : slots_) {
        if (slot.session) slot.session->send(protocol::Signal{protocol::kAllWorkers, SIGKILL});
      }
      kill_at_ms_.reset();
    }
  }
}

void Launcher::on_timers(int64_t now) {
  if (kill_at_ms_ && now >= *kill_at_ms_) {
    for (auto& slot : slots_) {
      if (slot.session) slot.session->send(protocol::Signal{protocol::kAllWorkers, SIGKILL});
    }
    kill_at_ms_.reset();
  }
  if (now >= next_heartbeat_ms_) {
    next_heartbeat_ms_ = now + options_.heartbeat_ms;
    for (size_t node = 0; node < slots_.size(); ++node) {
      auto& slot = slots_[node];
      if (!slot.session || slot.session->state() != AgentSession::State::ready) continue;
      slot.session->send(protocol::HeadHeartbeat{heartbeat_seq_, 0});
      if (now - slot.session->last_heard_ms() > options_.heartbeat_timeout_ms &&
          phase_ != Phase::shutting_down) {
        on_node_lost(node, fmt::format("no heartbeat for {} ms", now - slot.session->last_heard_ms()));
      }
    }
    ++heartbeat_seq_;
  }
  terminal_->tick(now);
  flush_terminal();
}

int Launcher::next_timeout(int64_t now) const {
  int64_t deadline = next_heartbeat_ms_;
  if (kill_at_ms_) deadline = std::min(deadline, *kill_at_ms_);
  if (phase_ == Phase::connecting) deadline = std::min(deadline, now + 250);
  if (phase_ == Phase::shutting_down) deadline = std::min(deadline, now + 50);
  return static_cast<int>(std::clamp<int64_t>(deadline - now, 0, 1000));
}

void Launcher::report(int exit_code) {
  if (!gang_) {
    terminal_->notice("muster: interrupted before the job started");
  } else if (interrupts_ > 0) {
    terminal_->notice(fmt::format("\nmuster: interrupted by {}; exit status per rank:\n{}",
                                  posix::signal_name(interrupt_signal_), format_exit_table(*gang_, gang_plan_)));
  } else if (gang_->failed()) {
    std::string text =
        "\nmuster: the job failed; exit status per rank:\n" + format_exit_table(*gang_, gang_plan_);
    int cause = *gang_->root_cause();
    const auto& tail = mux_->tail(cause).lines();
    if (!tail.empty()) {
      text += fmt::format("\nlast lines of rank {} (full log: {}):\n", cause, rank_logs_->path(cause).string());
      for (const auto& line : tail) text += "  " + line + "\n";
    }
    terminal_->notice(text);
  } else if (!options_.quiet) {
    terminal_->notice(
        fmt::format("muster: all {} ranks finished; logs in {}", gang_plan_.world_size, run_dir_));
  }
  manifest_.finish(exit_code);
  if (auto written = manifest_.write(run_dir_ + "/manifest.json"); !written) {
    terminal_->notice("muster: " + written.error().message);
  }
}

Result<int> Launcher::run() {
  auto prefix = logs::PrefixFormat::parse(
      options_.prefix_format,
      logs::PrefixLayout{gang_plan_.world_size, static_cast<int>(gang_plan_.nodes.size()),
                         gang_plan_.max_local_world_size, 0});
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
  manifest_.begin(options_, gang_plan_, job_id_, transport_->name());

  while (phase_ != Phase::done) {
    int64_t now = posix::monotonic_ms();
    if (phase_ == Phase::connecting) {
      start_more_agents();
      if (auto ok = check_connections(now); !ok) return ok.error();
      bool all_ready = started_agents_ == slots_.size() &&
                       std::all_of(slots_.begin(), slots_.end(), [](const SessionSlot& s) {
                         return s.session->state() == AgentSession::State::ready;
                       });
      if (all_ready) {
        for (size_t node = 0; node < slots_.size(); ++node) {
          manifest_.node_connected(static_cast<int>(node), slots_[node].session->hello());
        }
        manifest_.all_connected();
        pick_port();
      }
    }
    if (connect_error_) return *connect_error_;
    if (phase_ == Phase::running && gang_->all_ended()) after_attempt();
    if (phase_ == Phase::shutting_down) {
      bool all_gone = std::all_of(slots_.begin(), slots_.end(), [](SessionSlot& s) {
        return s.session->state() == AgentSession::State::closed && s.session->transport_reaped();
      });
      if (all_gone || now >= shutdown_deadline_ms_) phase_ = Phase::done;
      if (phase_ == Phase::done) break;
    }
    auto events = poller_.wait(next_timeout(now));
    if (!events) return events.error();
    for (const auto& event : *events) {
      auto kind = event.token >> 32;
      if (kind == kTerminalOut)
        flush_terminal();
      else
        service_session(static_cast<size_t>(event.token & 0xFFFFFFFFu), kind);
    }
    on_signals();
    on_timers(posix::monotonic_ms());
  }
  int code = interrupts_ > 0 ? 128 + interrupt_signal_ : gang_->exit_code();
  terminal_->finish();
  report(code);
  return code;
}

}  // namespace

Result<int> run_launch(const LaunchOptions& options) {
  posix::SignalBlock signals;
  auto binary = transport::self_binary();
  if (!binary) return binary.error();
  auto poller = posix::Poller::create();
  if (!poller) return poller.error();
  auto transport = options.transport == TransportKind::local
                       ? transport::make_local_transport(*binary)
                       : transport::make_ssh_transport(*binary, options.ssh);
  Launcher launcher(options, std::move(*poller), *binary, std::move(transport));
  Result<int> code = 0;
  {
    posix::NonBlockingScope nonblocking(kTerminal);  // a slow terminal must never stall the loop
    code = launcher.run();
  }
  launcher.drain_terminal();
  return code;
}

}  // namespace muster::launch
