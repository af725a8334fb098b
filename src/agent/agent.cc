// The agent's wiring (agent.h): one EventLoop; the head link (head_link.h), the workers (worker_set.h), the relay
// children (relay_set.h) and the sync receiver register with it or are driven once per round. Everything the head
// asks arrives in on_head_message and goes to the part that owns it.
#include "agent/agent.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <memory>

#include <fmt/core.h>

#include "agent/gpu_watch.h"
#include "agent/guard.h"
#include "agent/head_link.h"
#include "agent/python_hook.h"
#include "agent/relay_set.h"
#include "agent/stack_dumper.h"
#include "agent/worker_set.h"
#include "agent/worker_setup.h"
#include "posix/clock.h"
#include "posix/environment.h"
#include "posix/event_loop.h"
#include "posix/interfaces.h"
#include "posix/limits.h"
#include "posix/proc.h"
#include "posix/signals.h"
#include "posix/socket.h"
#include "posix/terminal.h"
#include "protocol/preamble.h"
#include "sync/receiver.h"
#include "util/version.h"

namespace muster::agent {
namespace {

constexpr int kStackSignalOffset = 7;  // the stack hook's signal: SIGRTMIN+7, which nothing else uses

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

protocol::Hello make_hello(const std::string& node_name) {
  protocol::Hello hello;
  hello.version = kVersion;
  hello.hostname = !node_name.empty() ? node_name : posix::hostname().has_value() ? *posix::hostname() : "";
  hello.pid = static_cast<uint32_t>(posix::current_pid());
  hello.capabilities = {"workers", "pick-port", "sync", "stacks", "attempts"};
  if (const char* connection = std::getenv("SSH_CONNECTION")) {
    // "client_ip client_port server_ip server_port": the server ip is how the head reached us.
    std::string text = connection;
    size_t a = text.find(' '), b = text.find(' ', a + 1), c = text.find(' ', b + 1);
    if (c != std::string::npos) hello.ssh_addr = text.substr(b + 1, c - b - 1);
  }
  if (auto addresses = posix::interface_addresses()) {
    for (const auto& address : *addresses) {
      if (address.up && !address.loopback) hello.addresses.push_back(address.address);
    }
  }
  hello.max_open_files = static_cast<uint32_t>(std::min<uint64_t>(posix::open_file_limit().soft, UINT32_MAX));
  if (auto port = posix::pick_free_tcp_port("0.0.0.0")) hello.free_port = static_cast<uint32_t>(*port);
  return hello;
}

class Agent {
 public:
  Agent(const AgentOptions& options, posix::EventLoop& loop, Guard& guard);
  int run();

 private:
  void on_head_message(const protocol::HeadMessage& message);
  void on_head_lost(const std::string& why);
  void on_signals(const std::vector<int>& signals);
  int next_timeout(int64_t now) const;
  bool finished() const;

  const AgentOptions& options_;
  posix::EventLoop& loop_;
  Guard& guard_;
  WorkerSetup setup_;
  StackDumper dumper_;
  HeadLink head_;
  RelaySet relays_;
  WorkerSet workers_;
  sync::Receiver receiver_;
  GpuWatch gpu_watch_;
  bool shutdown_requested_ = false;
};

Agent::Agent(const AgentOptions& options, posix::EventLoop& loop, Guard& guard)
    : options_(options),
      loop_(loop),
      guard_(guard),
      setup_(posix::first_realtime_signal() + kStackSignalOffset, python_hook_text()),
      dumper_(setup_.stack_signal()),
      head_(loop, options.heartbeat_ms, options.heartbeat_timeout_ms,
            HeadLink::Callbacks{
                [this](const protocol::HeadMessage& message) { on_head_message(message); },
                [this](const protocol::RelayView& view) { relays_.relay(view); },
                [this](const std::string& why) { on_head_lost(why); },
                [this](bool throttled) {
                  relays_.pause(throttled);  // the subtree waits too: back-pressure down the tree
                  workers_.throttle(throttled);
                }}),
      relays_(loop, head_, guard, options.heartbeat_ms, options.heartbeat_timeout_ms,
              [this](const protocol::HeadMessage& message) { on_head_message(message); }),
      workers_(loop, head_, guard, setup_, dumper_,
               WorkerSet::Options{options.in_container, [this] { return relays_.size(); }}),
      gpu_watch_(loop, [this](const protocol::GpuFault& fault) { head_.send(fault); }) {
  setup_.set_node_name(options_.node_name);
}

void Agent::on_head_message(const protocol::HeadMessage& message) {
  if (sync::Receiver::handles(message)) {
    for (const auto& reply : receiver_.handle(message)) head_.send(reply);
    return;
  }
  std::visit(
      [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, protocol::SpawnWorker>) {
          workers_.spawn(m);
        } else if constexpr (std::is_same_v<M, protocol::Signal>) {
          workers_.signal(m.worker, m.signal, m.attempt);
        } else if constexpr (std::is_same_v<M, protocol::Terminate>) {
          workers_.terminate(m.attempt, static_cast<int>(m.grace_ms));
        } else if constexpr (std::is_same_v<M, protocol::Ping>) {
          head_.send(protocol::Heartbeat{m.seq, unix_ms()});
        } else if constexpr (std::is_same_v<M, protocol::PickPort>) {
          auto port = posix::pick_free_tcp_port("0.0.0.0");
          head_.send(protocol::PortReply{m.request, port ? static_cast<uint32_t>(*port) : 0u,
                                         port ? "" : port.error().message});
        } else if constexpr (std::is_same_v<M, protocol::Shutdown>) {
          shutdown_requested_ = true;
          relays_.shutdown();
        } else if constexpr (std::is_same_v<M, protocol::RelayOpen>) {
          relays_.open(m);
        } else if constexpr (std::is_same_v<M, protocol::DumpStacks>) {
          workers_.dump_stacks(m);
        }
        // Relay never arrives here: the head link passes it to relays_ undecoded, and they drop a Relay nested in
        // a Relay.
      },
      message);
}

void Agent::on_head_lost(const std::string& why) {
  posix::write_stderr(fmt::format("muster agent: {}; stopping all workers\n", why));
  workers_.head_gone(options_.lost_head_grace_ms);
  relays_.clear();  // their agents hear EOF and stop their workers, as this one does
}

// SIGUSR1/SIGUSR2 are the job's (Slurm's --signal warning and `scancel --signal` reach every process of a step,
// the workers included, which act on them): they must not end the agent. Anything else stops it.
void Agent::on_signals(const std::vector<int>& signals) {
  for (int signal : signals) {
    if (signal == SIGUSR1 || signal == SIGUSR2) continue;
    head_.give_up(fmt::format("received {}", posix::signal_name(signal)));
  }
}

int Agent::next_timeout(int64_t now) const {
  int64_t deadline = std::min(now + options_.heartbeat_ms, workers_.next_deadline(now));
  return static_cast<int>(std::clamp<int64_t>(deadline - now, 0, 60'000));
}

bool Agent::finished() const {
  if (!workers_.all_reported()) return false;
  if (head_.gone()) return true;
  return shutdown_requested_ && relays_.done() && head_.drained();
}

int Agent::run() {
  if (auto opened = head_.open(protocol::preamble_line(options_.nonce)); !opened) {
    posix::write_stderr(fmt::format("muster agent: {}\n", opened.error().message));
    return 1;
  }
  head_.send(make_hello(options_.node_name));
  (void)gpu_watch_.start();  // XIDs from now on, to the head at once; none when the kernel log is not readable
  while (!finished()) {
    auto signals = loop_.run_once(next_timeout(posix::monotonic_ms()));
    if (!signals) {
      posix::write_stderr(fmt::format("muster agent: {}\n", signals.error().message));
      return 1;
    }
    on_signals(*signals);
    workers_.round(posix::monotonic_ms());
    relays_.round();
    head_.flush();
  }
  head_.flush();
  // Whatever the workers left behind in their process groups (a `cmd &` in a shell worker) ends with us.
  workers_.kill_all();
  setup_.finish(head_.gone());  // the job's node directory goes if the job ended well here (run_state.h)
  return head_.gone() ? 1 : 0;
}

}  // namespace

int run_agent(const AgentOptions& options) {
  std::vector<int> taken = posix::SignalBlock::default_signals();
  taken.insert(taken.end(), {SIGUSR1, SIGUSR2});
  posix::SignalBlock signals(taken);
  auto loop = posix::EventLoop::create();
  if (!loop) {
    posix::write_stderr(fmt::format("muster agent: {}\n", loop.error().message));
    return 1;
  }
  auto guard = start_guard();
  if (!guard) {
    posix::write_stderr(fmt::format("muster agent: cannot start the guard: {}\n", guard.error().message));
    return 1;
  }
  return Agent(options, **loop, *guard).run();
}

}  // namespace muster::agent
