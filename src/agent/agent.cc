// The agent's wiring (agent.h): one EventLoop; the head link (head_link.h), the workers (worker_set.h), the relay
// children (relay_set.h), the sync receiver and a sync's incoming direct data link (sync/data_inbound.h) register
// with it or are driven once per round. Everything the head asks arrives in on_head_message (or, as a raw frame
// from a relay or the data link, in on_head_frame) and goes to the part that owns it.
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
#include "agent/telemetry_sampler.h"
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
#include "protocol/wire.h"
#include "sync/data_inbound.h"
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
  hello.capabilities = {"workers", "pick-port", "sync", "stacks", "attempts", "sync-direct", "telemetry", "gpu-watch"};
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
  void on_head_frame(uint8_t type, std::string_view payload);
  void on_sync_message(const protocol::HeadMessage& message);
  void listen_for_data(const protocol::SyncDataListen& listen);
  void on_data_failed(const std::string& why);
  void reap_data_link();
  void on_head_lost(const std::string& why);
  void on_signals(const std::vector<int>& signals);
  int next_timeout(int64_t now) const;
  bool finished() const;
  std::vector<TelemetrySampler::WorkerInfo> worker_infos() const;

  const AgentOptions& options_;
  posix::EventLoop& loop_;
  Guard& guard_;
  WorkerSetup setup_;
  StackDumper dumper_;
  HeadLink head_;
  RelaySet relays_;
  WorkerSet workers_;
  TelemetrySampler telemetry_;
  sync::Receiver receiver_;
  std::unique_ptr<sync::DataInbound> data_in_;  // a sync's incoming direct data link (section 8a)
  uint32_t data_session_ = 0;
  bool data_in_over_ = false;  // ended or failed: closed in the next round (never inside its own callback)
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
              [this](std::string_view frame) {
                uint32_t length = frame.size() >= 5 ? protocol::WireReader(frame.substr(0, 4)).u32("length") : 0;
                if (frame.size() < 5 || length != frame.size() - 4) {
                  head_.send(protocol::AgentError{"relayed frame: its length field does not match"});
                  return;
                }
                on_head_frame(static_cast<uint8_t>(frame[4]), frame.substr(5));
              }),
      workers_(loop, head_, guard, setup_, dumper_,
               WorkerSet::Options{options.in_container, [this] { return relays_.size(); },
                                  [this](uint32_t worker, protocol::Stream stream, std::string_view bytes) {
                                    telemetry_.output(worker, stream, bytes);
                                  },
                                  [this](uint32_t worker, int64_t exited_at_ms) { telemetry_.worker_ended(worker, exited_at_ms); },
                                  [this](protocol::SpawnWorker& request) { telemetry_.prepare(request); }}),
      telemetry_(loop, head_, [this] { return worker_infos(); }, options.node_name),
      gpu_watch_(loop, [this](const protocol::GpuFault& fault) { head_.send(fault); }) {
  setup_.set_node_name(options_.node_name);
}

// A frame from a Relay naming this node, or from the data link: SyncData goes to the receiver as a view (no copy
// of its bytes), a Relay to the relay set, anything else decoded.
void Agent::on_head_frame(uint8_t type, std::string_view payload) {
  if (type == static_cast<uint8_t>(protocol::Type::relay)) {
    auto view = protocol::decode_relay(payload);
    if (!view) return head_.send(protocol::AgentError{view.error().message});
    return relays_.relay(*view);
  }
  if (type == static_cast<uint8_t>(protocol::Type::sync_data)) {
    auto data = protocol::decode_sync_data(payload);
    if (!data) return head_.send(protocol::AgentError{data.error().message});
    for (const auto& reply : receiver_.handle_data(*data)) head_.send(reply);
    return;
  }
  auto message = protocol::decode_head(type, payload);
  if (!message) return head_.send(protocol::AgentError{message.error().message});
  if (*message) on_head_message(**message);
}

void Agent::on_sync_message(const protocol::HeadMessage& message) {
  if (std::holds_alternative<protocol::SyncOpen>(message)) {  // a new session: the last one's data links go
    if (data_in_) data_in_->close();
    data_in_over_ = data_in_ != nullptr;
    relays_.reset_data();
  }
  for (const auto& reply : receiver_.handle(message)) head_.send(reply);
}

// SyncDataListen: a listener for this session's incoming link; its frames are handled as if from the head.
void Agent::listen_for_data(const protocol::SyncDataListen& listen) {
  if (data_in_) data_in_->close();
  data_in_.reset();
  data_in_over_ = false;
  data_session_ = listen.session;
  sync::DataLinkParams params = sync::link_params_of(listen);
  sync::DataInbound::Callbacks callbacks;
  callbacks.on_frame = [this](uint8_t type, std::string_view payload) { on_head_frame(type, payload); };
  callbacks.on_failed = [this](const std::string& why) { on_data_failed(why); };
  callbacks.on_end = [this] {
    relays_.finish_data();  // the end travels down: each child's link ends after what was queued for it
    data_in_over_ = true;
  };
  auto inbound = sync::DataInbound::listen(loop_, std::move(params), std::move(callbacks));
  if (!inbound) return head_.send(protocol::SyncDataReady{listen.session, 0, inbound.error().message});
  data_in_ = std::move(*inbound);
  head_.send(protocol::SyncDataReady{listen.session, static_cast<uint32_t>(data_in_->port()), ""});
}

// The incoming link broke: the files it was bringing are dropped (the head sends them again, over ssh), the links
// to the children are cut so that they drop theirs too, and the head is told. A link that never came up is the
// sending side's to report (SyncDataLinked).
void Agent::on_data_failed(const std::string& why) {
  data_in_over_ = true;
  if (!data_in_ || !data_in_->linked()) return;
  receiver_.abandon_incoming();
  relays_.cut_data();
  head_.send(protocol::SyncDataLost{data_session_, why});
}

void Agent::reap_data_link() {
  if (data_in_over_) data_in_.reset();
  data_in_over_ = false;
}

void Agent::on_head_message(const protocol::HeadMessage& message) {
  if (sync::Receiver::handles(message)) return on_sync_message(message);
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
        } else if constexpr (std::is_same_v<M, protocol::SyncDataListen>) {
          listen_for_data(m);
        } else if constexpr (std::is_same_v<M, protocol::SyncDataConnect>) {
          relays_.connect_data(m);
        } else if constexpr (std::is_same_v<M, protocol::SyncDataDrop>) {
          relays_.drop_data(m.node);
        } else if constexpr (std::is_same_v<M, protocol::TelemetryStart>) {
          telemetry_.start(m);
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

std::vector<TelemetrySampler::WorkerInfo> Agent::worker_infos() const {
  std::vector<TelemetrySampler::WorkerInfo> infos;
  workers_.each_worker([&](uint32_t id, int pid, int pgid, bool running) { infos.push_back({id, pid, pgid, running}); });
  return infos;
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
    reap_data_link();
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
