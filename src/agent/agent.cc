#include "agent/agent.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "agent/guard.h"
#include "agent/python_hook.h"
#include "agent/stack_dumper.h"
#include "agent/relay.h"
#include "agent/worker.h"
#include "posix/clock.h"
#include "posix/environment.h"
#include "posix/file.h"
#include "posix/interfaces.h"
#include "posix/limits.h"
#include "posix/pipe.h"
#include "posix/poller.h"
#include "posix/proc.h"
#include "posix/process_groups.h"
#include "posix/signals.h"
#include "posix/socket.h"
#include "posix/terminal.h"
#include "protocol/codec.h"
#include "protocol/frame_reader.h"
#include "protocol/hops.h"
#include "protocol/preamble.h"
#include "sync/receiver.h"
#include "util/block_queue.h"
#include "util/version.h"

namespace muster::agent {
namespace {

using protocol::Stream;

constexpr size_t kOutboxHigh = 8u << 20;       // stop reading worker pipes above this (spec section 7)
constexpr size_t kOutboxLow = kOutboxHigh / 2;  // resume below this
// Messages are written to the head once per loop round, so the acks of many small files (and whatever comes up
// a relay chain) share a write and an ssh packet; a queue this large is written at once.
constexpr size_t kFlushAt = 256u << 10;
constexpr size_t kGrownPipeBytes = 1u << 20;  // a busy worker's pipe (grow_pipe)
constexpr int64_t kPipeLingerMs = 200;         // after a worker exits, wait this long for its pipes' EOF
constexpr int kStdin = 0;
constexpr int kStdout = 1;
constexpr int64_t kProgressCheckMs = 1000;  // how often the workers' progress files are looked at
// rest_if_busy: a pipe drained within kBusyGapMs of the last read is not watched for kRestMs, so the next read
// takes what a fast writer wrote meanwhile in one piece.
constexpr int64_t kBusyGapMs = 2;
constexpr int64_t kRestMs = 2;
constexpr int kStackSignalOffset = 7;       // the stack hook's signal: SIGRTMIN+7, which nothing else uses
// Workers are started in slices of at most this long per loop round (spawn_pending): a node asked for 1,000
// ranks on a slow or loaded machine must still read the head and send its heartbeats between slices.
constexpr int64_t kSpawnSliceMs = 20;

// Poller tokens: kind in the high 32 bits, worker id (or relay child slot) in the low ones.
enum Kind : uint64_t { kHeadIn = 1, kHeadOut = 2, kWorkerOut = 3, kWorkerErr = 4, kChildOut = 5, kChildErr = 6, kChildIn = 7 };
uint64_t token(Kind kind, uint32_t id = 0) { return (static_cast<uint64_t>(kind) << 32) | id; }
uint64_t pipe_token(Stream stream, uint32_t worker) { return token(stream == Stream::out ? kWorkerOut : kWorkerErr, worker); }
WorkerPipe& pipe_of(Worker& worker, Stream stream) { return stream == Stream::out ? worker.out : worker.err; }

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

protocol::Hello make_hello(const std::string& node_name) {
  protocol::Hello hello;
  hello.version = kVersion;
  hello.hostname = !node_name.empty() ? node_name : posix::hostname().has_value() ? *posix::hostname() : "";
  hello.pid = static_cast<uint32_t>(posix::current_pid());
  hello.capabilities = {"workers", "pick-port", "sync", "stacks"};
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

// EMFILE names the limit and how to raise it (the head checks the limit before a launch: launch/fd_budget.h).
// `children`: the agents this one started below it in the launch tree, 3 pipes each.
std::string pipe_failure(const Error& error, size_t children) {
  std::string text = "cannot create pipes: " + error.message;
  if (error.sys != EMFILE && error.sys != ENFILE) return text;
  std::string relays = children == 0 ? "" : fmt::format(", and each of the {} agents this node started below it "
                                                        "in the launch tree 3", children);
  return text + fmt::format(" (the open-file limit (RLIMIT_NOFILE) here is {}, and every worker holds 2 pipes{}: "
                            "raise the hard limit, `nofile` in /etc/security/limits.conf, or run fewer ranks per "
                            "node{})",
                            posix::limit_text(posix::open_file_limit().soft), relays,
                            children == 0 ? "" : " or give a smaller --fanout");
}

class Agent {
 public:
  Agent(AgentOptions options, posix::Poller poller, Guard guard)
      : options_(std::move(options)),
        poller_(std::move(poller)),
        guard_(std::move(guard)),
        setup_(posix::first_realtime_signal() + kStackSignalOffset, python_hook_text()),
        dumper_(setup_.stack_signal()) {
    setup_.set_node_name(options_.node_name);
  }
  int run();

 private:
  void send(const protocol::AgentMessage& message);
  void send_encoded(std::string_view frame);
  void open_relay(const protocol::RelayOpen& open);
  void relay(const protocol::RelayView& message);
  void service_relays(uint64_t token);
  bool relays_done() const;
  void flush_to_head();
  void on_head_readable();
  void on_head_message(const protocol::HeadMessage& message);
  void reject_head_frame(const std::string& why);
  void spawn_pending();
  void drop_pending(uint32_t id, int signal);
  void spawn_worker(const protocol::SpawnWorker& request);
  void read_worker(Worker& worker, Stream stream);
  void grow_pipe(Worker& worker, Stream stream);
  void rest_if_busy(Worker& worker, Stream stream, size_t bytes);
  void wake_rested_pipes();
  void close_pipe(Worker& worker, Stream stream);
  void update_throttle();
  void reap_workers();
  void report_finished_workers();
  void send_notes(const Worker& worker);
  void dump_stacks(const protocol::DumpStacks& request);
  void check_progress(int64_t now);
  void signal_workers(uint32_t id, int signal);
  void terminate(int grace_ms);
  void head_lost(const char* why);
  void on_signals();
  void on_timers();
  int next_timeout() const;
  bool finished() const;

  AgentOptions options_;
  posix::Poller poller_;
  Guard guard_;
  protocol::FrameReader frames_;
  BlockQueue outbox_;
  bool head_writable_registered_ = false;
  bool stdout_grown_ = false;
  bool throttled_ = false;
  std::map<uint32_t, std::unique_ptr<Worker>> workers_;
  std::deque<protocol::SpawnWorker> pending_spawns_;  // asked for, not started yet (spawn_pending)
  sync::Receiver receiver_;
  uint32_t self_index_ = 0;  // this node's index in the relay tree (RelayOpen::self)
  std::vector<std::unique_ptr<RelayChild>> children_;
  std::vector<std::string> base_env_ = posix::current_environment();
  WorkerSetup setup_;
  StackDumper dumper_;
  bool setup_error_sent_ = false;
  int64_t next_progress_check_ms_ = 0;
  int session_ = posix::current_session_id();
  std::optional<int64_t> kill_deadline_ms_;
  bool shutdown_requested_ = false;
  bool head_gone_ = false;
  bool head_eof_ = false;
  int64_t last_heard_ms_ = posix::monotonic_ms();
  int64_t next_heartbeat_ms_ = 0;
  uint64_t heartbeat_seq_ = 0;
};

void Agent::send(const protocol::AgentMessage& message) {
  send_encoded(protocol::encode(message));
}

void Agent::send_encoded(std::string_view frame) {
  if (head_gone_) return;
  outbox_.append(frame);
  if (outbox_.size() >= kFlushAt) flush_to_head();
}

// Starts an agent on each child of this node in the tree; one that cannot start is reported lost at once (the
// head may then reach it directly).
void Agent::open_relay(const protocol::RelayOpen& open) {
  if (!children_.empty()) return send(protocol::AgentError{"relay: this agent already has a relay tree"});
  if (open.transport > protocol::kRelayLocal) return send(protocol::AgentError{"relay: unknown transport"});
  std::set<uint32_t> known = {open.self};  // every parent must be listed before its children
  for (size_t i = 0; i < open.indices.size(); ++i) {
    if (!known.count(open.parents[i]) || !known.insert(open.indices[i]).second) {
      return send(protocol::AgentError{fmt::format("relay: node {} of the tree comes before its parent or twice",
                                                   open.indices[i])});
    }
  }
  self_index_ = open.self;
  for (size_t i = 0; i < open.destinations.size(); ++i) {
    if (open.parents[i] != open.self) continue;
    auto slot = static_cast<uint32_t>(children_.size());
    auto child = RelayChild::start(open, i, poller_, {token(kChildOut, slot), token(kChildErr, slot), token(kChildIn, slot)},
                                   options_.heartbeat_ms, options_.heartbeat_timeout_ms);
    if (!child) {
      send(protocol::NodeLost{open.indices[i], child.error().message, ""});
      continue;
    }
    // Should this agent die, the guard ends the child's transport too: its agent then hears EOF and stops.
    (void)posix::write_all(guard_.pipe.get(), std::to_string((*child)->transport_pgid()) + "\n");
    children_.push_back(std::move(*child));
  }
}

// Relay frames are the bulk of a sync through the tree: they are looked into when this node's bit is set and
// passed on as views to the children whose subtree has a bit set, so the inner frame is copied once per child.
// A SyncOpen makes this node scan its destination (tens of milliseconds to seconds): its children get it first,
// written at once, so the nodes of a chain scan together instead of one after the other.
void Agent::relay(const protocol::RelayView& message) {
  std::optional<protocol::HeadMessage> mine;
  if (protocol::has_hop(message.hops, self_index_)) {
    auto inner = protocol::decode_head_frame(message.frame);
    if (!inner) {
      send(protocol::AgentError{"relayed frame: " + inner.error().message});
    } else if (*inner && !std::holds_alternative<protocol::Relay>(**inner)) {
      mine = std::move(**inner);
    }
  }
  bool slow = mine && std::holds_alternative<protocol::SyncOpen>(*mine);
  if (mine && !slow) on_head_message(*mine);
  std::string header;
  for (auto& child : children_) {
    if (child->done() || !protocol::has_any_hop(message.hops, child->subtree())) continue;
    if (header.empty()) header = protocol::encode_relay_header(message.hops, message.frame.size());
    child->send_frame(header, message.frame);
    if (slow) child->flush();
  }
  if (slow) on_head_message(*mine);
}

// A child's fd is ready (`event_token` names it), or, with 0, once per loop round: timers, queued writes, and
// whatever came up, passed on to the head.
void Agent::service_relays(uint64_t event_token) {
  if (children_.empty()) return;
  if (event_token != 0) {
    uint32_t slot = static_cast<uint32_t>(event_token);
    if (slot < children_.size()) children_[slot]->on_event(event_token);
  } else {
    int64_t now = posix::monotonic_ms();
    for (auto& child : children_) {
      child->on_timer(now);
      child->flush();
    }
  }
  for (auto& child : children_) {
    for (const auto& frame : child->take_upward()) send_encoded(frame);
  }
}

bool Agent::relays_done() const {
  return std::all_of(children_.begin(), children_.end(), [](const auto& child) { return child->done(); });
}

void Agent::flush_to_head() {
  while (!outbox_.empty()) {
    auto written = posix::write_some(kStdout, outbox_.pending());
    if (!written) {  // the head's side is closed: nobody to talk to
      head_lost("cannot write to the head");
      return;
    }
    if (written->would_block) {
      // The transport (sshd, srun) reads slower than we write: a larger pipe buffer, once, as for workers
      // (grow_pipe); stdout that is not a pipe refuses, and stays as it is.
      if (!stdout_grown_) (void)posix::set_pipe_size(kStdout, kGrownPipeBytes);
      stdout_grown_ = true;
      break;
    }
    outbox_.consumed(written->bytes);
  }
  bool want_writable = !outbox_.empty();
  if (want_writable != head_writable_registered_) {
    head_writable_registered_ = want_writable;
    if (want_writable) (void)poller_.add(kStdout, posix::poll_writable, token(kHeadOut));
    else (void)poller_.remove(kStdout);
  }
  update_throttle();
}

void Agent::update_throttle() {
  bool throttle = outbox_.size() > kOutboxHigh || (throttled_ && outbox_.size() > kOutboxLow);
  if (throttle == throttled_) return;
  throttled_ = throttle;
  for (auto& child : children_) child->pause(throttle);  // the subtree waits too: back-pressure down the tree
  uint32_t events = throttle ? 0 : posix::poll_readable;
  for (auto& [id, worker] : workers_) {
    for (Stream stream : {Stream::out, Stream::err}) {
      WorkerPipe& pipe = pipe_of(*worker, stream);
      // A resting pipe is watched again when its rest ends (wake_rested_pipes).
      if (pipe.fd.valid() && (throttle || pipe.rest_until_ms == 0)) {
        (void)poller_.modify(pipe.fd.get(), events, pipe_token(stream, id));
      }
    }
  }
}

void Agent::on_head_readable() {
  for (int round = 0; round < 16; ++round) {
    auto got = posix::read_some(kStdin, frames_.reserve(64 * 1024));  // in place: sync data is not copied again
    if (!got || got->eof) {
      head_eof_ = true;
      (void)poller_.remove(kStdin);
      head_lost("the head closed the connection");
      return;
    }
    if (got->would_block) return;
    last_heard_ms_ = posix::monotonic_ms();
    frames_.commit(got->bytes);
    while (true) {
      auto frame = frames_.next_view();
      if (!frame) {
        head_lost(frame.error().message.c_str());
        return;
      }
      if (!*frame) break;
      if ((*frame)->type == static_cast<uint8_t>(protocol::Type::relay)) {
        auto view = protocol::decode_relay((*frame)->payload);
        if (!view) return reject_head_frame(view.error().message);
        relay(*view);
        continue;
      }
      auto message = protocol::decode_head((*frame)->type, (*frame)->payload);
      if (!message) return reject_head_frame(message.error().message);
      if (*message) on_head_message(**message);
    }
  }
}

void Agent::reject_head_frame(const std::string& why) {
  send(protocol::AgentError{why});
  head_lost("protocol error");
}

void Agent::on_head_message(const protocol::HeadMessage& message) {
  if (sync::Receiver::handles(message)) {
    for (const auto& reply : receiver_.handle(message)) send(reply);
    return;
  }
  std::visit(
      [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, protocol::SpawnWorker>) {
          pending_spawns_.push_back(m);
        } else if constexpr (std::is_same_v<M, protocol::Signal>) {
          drop_pending(m.worker, m.signal);
          signal_workers(m.worker, m.signal);
        } else if constexpr (std::is_same_v<M, protocol::Terminate>) {
          drop_pending(protocol::kAllWorkers, SIGTERM);
          terminate(static_cast<int>(m.grace_ms));
        } else if constexpr (std::is_same_v<M, protocol::Ping>) {
          send(protocol::Heartbeat{m.seq, unix_ms()});
        } else if constexpr (std::is_same_v<M, protocol::PickPort>) {
          auto port = posix::pick_free_tcp_port("0.0.0.0");
          send(protocol::PortReply{m.request, port ? static_cast<uint32_t>(*port) : 0u,
                                   port ? "" : port.error().message});
        } else if constexpr (std::is_same_v<M, protocol::Shutdown>) {
          shutdown_requested_ = true;
          for (auto& child : children_) {  // the subtree ends first; this agent waits for it (finished())
            child->send_frame(protocol::encode(protocol::HeadMessage{protocol::Shutdown{}}), "");
            child->expect_end();
          }
        } else if constexpr (std::is_same_v<M, protocol::RelayOpen>) {
          open_relay(m);
        } else if constexpr (std::is_same_v<M, protocol::DumpStacks>) {
          dump_stacks(m);
        }
        // Relay never arrives here: on_head_readable passes it to relay() undecoded, and relay() drops a Relay
        // nested in a Relay.
      },
      message);
}

// Starts queued workers for at most kSpawnSliceMs, then lets the loop go round (the head's frames, heartbeats,
// output) before the next slice: spawning never holds up the agent's words to the head.
void Agent::spawn_pending() {
  if (pending_spawns_.empty()) return;
  int64_t until = posix::monotonic_ms() + kSpawnSliceMs;
  do {
    protocol::SpawnWorker request = std::move(pending_spawns_.front());
    pending_spawns_.pop_front();
    spawn_worker(request);
  } while (!pending_spawns_.empty() && posix::monotonic_ms() < until);
}

// Workers not started yet when a signal that ends them arrives are never started: each is reported as ended by
// that signal (a signal that does not end a process, SIGUSR1 say, leaves them queued).
void Agent::drop_pending(uint32_t id, int signal) {
  if (signal != SIGTERM && signal != SIGKILL && signal != SIGINT && signal != SIGHUP) return;
  std::erase_if(pending_spawns_, [&](const protocol::SpawnWorker& request) {
    if (id != protocol::kAllWorkers && id != request.worker) return false;
    send(protocol::WorkerExited{request.worker, protocol::ExitHow::signaled, signal,
                                fmt::format("not started: stopped by {} before it started", posix::signal_name(signal))});
    return true;
  });
}

void Agent::spawn_worker(const protocol::SpawnWorker& request) {
  auto fail = [&](const std::string& why) {
    send(protocol::WorkerExited{request.worker, protocol::ExitHow::failed_to_start, 127, why});
  };
  if (request.argv.empty()) return fail("empty command");
  if (!request.cwd.empty() && !posix::is_directory(request.cwd)) {
    bool contained = options_.in_container;  // not /.dockerenv: a VM or machine built from an image may have one
    return fail(fmt::format("working directory '{}' does not exist {} (use --chdir{})", request.cwd,
                            contained ? "in this container" : "on this node",
                            contained ? ", or mount it into the container" : ""));
  }
  auto env = posix::merge_environment(base_env_, request.env);
  auto paths = setup_.prepare(request.job, request.worker, request.features, env);
  if (!paths && !setup_error_sent_) {
    setup_error_sent_ = true;  // the job runs without muster's diagnostics on this node
    send(protocol::AgentError{"no stack dumps or error files on this node: " + paths.error().message});
  }
  auto out = posix::make_pipe();
  auto err = posix::make_pipe();
  if (!out || !err) return fail(pipe_failure(out ? err.error() : out.error(), children_.size()));
  posix::SpawnOptions spawn;
  spawn.argv = request.argv;  // argv[0] is looked up in the PATH of `env`, the worker's own
  spawn.env = std::move(env);
  spawn.cwd = request.cwd;
  spawn.stdout_fd = out->write.get();
  spawn.stderr_fd = err->write.get();
  spawn.new_process_group = true;
  spawn.parent_death_signal = SIGKILL;
  spawn.ptracer = posix::current_pid();  // the stack dumper's debugger may attach (stack_dumper.h)
  auto process = posix::spawn(spawn);
  if (!process) return fail(process.error().message);
  auto worker = std::make_unique<Worker>(Worker{request.worker, std::move(*process), WorkerPipe{std::move(out->read)},
                                                WorkerPipe{std::move(err->read)}, std::nullopt, 0, false,
                                                paths ? std::move(*paths) : WorkerPaths{}, posix::monotonic_ms(), 0,
                                                posix::oom_kill_count().value_or(0)});
  uint32_t events = throttled_ ? 0 : posix::poll_readable;
  for (Stream stream : {Stream::out, Stream::err}) {
    int fd = pipe_of(*worker, stream).fd.get();
    (void)posix::set_nonblocking(fd);
    (void)poller_.add(fd, events, pipe_token(stream, request.worker));
  }
  // The guard learns the group before anything else can happen to the agent (its pipe is blocking and
  // nearly empty: the guard reads as fast as workers start).
  (void)posix::write_all(guard_.pipe.get(), std::to_string(worker->process.pgid()) + "\n");
  send(protocol::WorkerStarted{request.worker, static_cast<uint32_t>(worker->process.pid())});
  workers_[request.worker] = std::move(worker);
}

void Agent::close_pipe(Worker& worker, Stream stream) {
  posix::Fd& fd = pipe_of(worker, stream).fd;
  if (!fd.valid()) return;
  (void)poller_.remove(fd.get());
  fd.reset();
}

// Worker output is the agent's bulk: it is read straight into the outbox behind an Output header (no copy), and a
// pipe that comes back full gets a larger buffer once (grow_pipe), so a worker printing at full speed and the agent
// trade the CPU in large pieces rather than 64 KiB at a time.
void Agent::read_worker(Worker& worker, Stream stream) {
  posix::Fd& fd = pipe_of(worker, stream).fd;
  constexpr size_t kHeader = protocol::kOutputHeaderSize;
  static char discard[protocol::kMaxOutputChunk];
  size_t total = 0;
  for (int round = 0; round < 16 && fd.valid(); ++round) {
    std::span<char> into = head_gone_ ? std::span<char>(discard)
                                      : outbox_.reserve_back(kHeader + protocol::kMaxOutputChunk).subspan(kHeader);
    auto got = posix::read_some(fd.get(), into);
    if (!got || got->eof) return close_pipe(worker, stream);
    if (got->would_block) return rest_if_busy(worker, stream, total);
    total += got->bytes;
    if (got->bytes == into.size()) grow_pipe(worker, stream);
    if (head_gone_) continue;
    protocol::encode_output_header(worker.id, stream, got->bytes, into.data() - kHeader);
    outbox_.commit_back(kHeader + got->bytes);
    if (outbox_.size() >= kFlushAt) flush_to_head();
  }
}

// A worker that prints fast through a tool writing 4 KiB at a time (`yes | head`, Python's buffered stdout) woke
// this loop, and sshd and the head behind it, once per 4 KiB: 12,000 Output frames for 50 MB. When a read
// drained the pipe and the one before it was just now, the pipe rests kRestMs (not watched; its buffer holds what
// arrives meanwhile), and the next read takes it in 64 KiB frames: output is at most kRestMs late, and only
// while it streams. A pipe that is idle between lines is read at once, as before.
void Agent::rest_if_busy(Worker& worker, Stream stream, size_t bytes) {
  WorkerPipe& pipe = pipe_of(worker, stream);
  int64_t now = posix::monotonic_ms();
  bool busy = bytes > 0 && now - pipe.read_ms <= kBusyGapMs;
  if (bytes > 0) pipe.read_ms = now;
  if (!busy || head_gone_) return;
  pipe.rest_until_ms = now + kRestMs;
  (void)poller_.modify(pipe.fd.get(), 0, pipe_token(stream, worker.id));
}

// Pipes whose rest is over are watched again (unless the head is behind: update_throttle watches them when it
// catches up) and read at once.
void Agent::wake_rested_pipes() {
  int64_t now = posix::monotonic_ms();
  for (auto& [id, worker] : workers_) {
    for (Stream stream : {Stream::out, Stream::err}) {
      WorkerPipe& pipe = pipe_of(*worker, stream);
      if (pipe.rest_until_ms == 0 || now < pipe.rest_until_ms) continue;
      pipe.rest_until_ms = 0;
      if (!pipe.fd.valid() || throttled_) continue;
      (void)poller_.modify(pipe.fd.get(), posix::poll_readable, pipe_token(stream, id));
      read_worker(*worker, stream);
    }
  }
}

// A pipe read full: its worker writes faster than the agent reads 64 KiB at a time. A 1 MiB buffer (the
// unprivileged maximum, /proc/sys/fs/pipe-max-size) cut the CPU of a 4 x 50 MB log run by ~12 % on the testbed
// (fewer wake-ups of worker, agent, sshd and head). Only such pipes grow: they count against the user's pipe
// budget (pipe-user-pages-soft), which quiet workers must not use up. A refusal leaves the pipe as it is.
void Agent::grow_pipe(Worker& worker, Stream stream) {
  WorkerPipe& pipe = pipe_of(worker, stream);
  if (pipe.grown) return;
  pipe.grown = true;
  (void)posix::set_pipe_size(pipe.fd.get(), kGrownPipeBytes);
}

void Agent::reap_workers() {
  for (auto& [id, worker] : workers_) {
    if (worker->status) continue;
    if (auto status = worker->process.try_wait()) {
      worker->status = *status;
      worker->exited_at_ms = posix::monotonic_ms();
      // Drain what the pipes already hold; EOF usually follows at once.
      read_worker(*worker, Stream::out);
      read_worker(*worker, Stream::err);
    }
  }
}

// A worker is reported once reaped and its pipes are at EOF, or abandoned after kPipeLingerMs (a daemon it
// started may hold them open forever).
void Agent::report_finished_workers() {
  int64_t now = posix::monotonic_ms();
  for (auto& [id, worker] : workers_) {
    if (!worker->status || worker->reported) continue;
    if (!worker->pipes_closed() && now - worker->exited_at_ms < kPipeLingerMs) continue;
    close_pipe(*worker, Stream::out);
    close_pipe(*worker, Stream::err);
    worker->reported = true;
    protocol::WorkerExited exited{id, protocol::ExitHow::exited, 0, posix::describe(*worker->status)};
    if (auto* signaled = std::get_if<posix::Signaled>(&*worker->status)) {
      exited.how = protocol::ExitHow::signaled;
      exited.code = signaled->signal;
    } else {
      exited.code = std::get<posix::Exited>(*worker->status).code;
    }
    if (exited.how != protocol::ExitHow::exited || exited.code != 0) send_notes(*worker);
    send(exited);
  }
}

// What the node can tell about a worker that failed, before its WorkerExited: its error file, the flight
// recorder's dumps, the kernel's OOM kill (worker_setup.h).
void Agent::send_notes(const Worker& worker) {
  const auto* signaled = std::get_if<posix::Signaled>(&*worker.status);
  bool killed = signaled && signaled->signal == SIGKILL;
  for (auto& [key, text] :
       setup_.collect(worker.paths, worker.process.pid(), killed, worker.started_ms, worker.oom_kills_at_start)) {
    send(protocol::WorkerNote{worker.id, key, text});
  }
}

void Agent::dump_stacks(const protocol::DumpStacks& request) {
  int64_t now = posix::monotonic_ms();
  for (auto& [id, worker] : workers_) {
    if (request.worker != protocol::kAllWorkers && request.worker != id) continue;
    if (worker->status) {
      send(protocol::WorkerStack{request.request, id, protocol::StackKind::none, "the worker has ended", ""});
      continue;
    }
    dumper_.start(request.request, id, worker->process.pid(), worker->paths.stacks_dir, now);
  }
  for (auto& answer : dumper_.poll(now)) send(answer);
}

// A worker that touched its progress file since the last look made progress (the head's stall detection).
void Agent::check_progress(int64_t now) {
  if (now < next_progress_check_ms_) return;
  next_progress_check_ms_ = now + kProgressCheckMs;
  for (auto& [id, worker] : workers_) {
    if (worker->status || worker->paths.progress_file.empty()) continue;
    auto st = posix::lstat_path(worker->paths.progress_file);
    if (!st || !*st || (*st)->mtime_ns == worker->progress_mtime_ns) continue;
    worker->progress_mtime_ns = (*st)->mtime_ns;
    send(protocol::WorkerProgress{id});
  }
}

void Agent::signal_workers(uint32_t id, int signal) {
  auto chosen = [&](uint32_t worker_id) { return id == protocol::kAllWorkers || id == worker_id; };
  // Exited workers' groups are signalled too (their children may still be running), but only while the group is
  // still ours: once its leader is reaped the id may be reused (posix/process_groups.h).
  std::set<int> exited;
  for (auto& [worker_id, worker] : workers_) {
    if (chosen(worker_id) && worker->process.reaped()) exited.insert(worker->process.pgid());
  }
  std::set<int> ours = posix::groups_still_in_session(exited, session_);
  for (auto& [worker_id, worker] : workers_) {
    if (!chosen(worker_id) || (worker->process.reaped() && !ours.contains(worker->process.pgid()))) continue;
    (void)worker->process.signal(signal);
  }
}

void Agent::terminate(int grace_ms) {
  signal_workers(protocol::kAllWorkers, SIGTERM);
  int64_t deadline = posix::monotonic_ms() + grace_ms;
  if (!kill_deadline_ms_ || deadline < *kill_deadline_ms_) kill_deadline_ms_ = deadline;
}

void Agent::head_lost(const char* why) {
  if (head_gone_) return;
  head_gone_ = true;
  pending_spawns_.clear();  // nobody to start them for
  posix::write_stderr(fmt::format("muster agent: {}; stopping all workers\n", why));
  terminate(options_.lost_head_grace_ms);
  children_.clear();  // their agents hear EOF and stop their workers, as this one does
  if (head_writable_registered_) (void)poller_.remove(kStdout);
  head_writable_registered_ = false;
  if (!head_eof_) (void)poller_.remove(kStdin);
}

void Agent::on_signals() {
  for (int signal : posix::take_pending_signals()) {
    if (signal == SIGCHLD) continue;  // reaping happens every round
    head_lost(fmt::format("received {}", posix::signal_name(signal)).c_str());
  }
}

void Agent::on_timers() {
  int64_t now = posix::monotonic_ms();
  if (!head_gone_ && !head_eof_ && now - last_heard_ms_ > options_.heartbeat_timeout_ms) {
    on_head_readable();  // look once more before judging: after a stall of this agent, the words may be waiting
  }
  if (!head_gone_ && now - last_heard_ms_ > options_.heartbeat_timeout_ms) {
    head_lost(fmt::format("no word from the head for {} ms", now - last_heard_ms_).c_str());
  }
  if (!head_gone_ && now >= next_heartbeat_ms_) {
    send(protocol::Heartbeat{heartbeat_seq_++, unix_ms()});
    next_heartbeat_ms_ = now + options_.heartbeat_ms;
  }
  check_progress(now);
  if (dumper_.busy()) {
    for (auto& answer : dumper_.poll(now)) send(answer);
  }
  if (kill_deadline_ms_ && now >= *kill_deadline_ms_) {
    signal_workers(protocol::kAllWorkers, SIGKILL);
    kill_deadline_ms_.reset();
  }
}

int Agent::next_timeout() const {
  int64_t now = posix::monotonic_ms();
  if (!pending_spawns_.empty()) return 0;
  int64_t deadline = now + options_.heartbeat_ms;
  if (!head_gone_) deadline = std::min(deadline, next_heartbeat_ms_);
  if (kill_deadline_ms_) deadline = std::min(deadline, *kill_deadline_ms_);
  deadline = std::min(deadline, std::min(next_progress_check_ms_, dumper_.next_deadline(now)));
  for (const auto& [id, worker] : workers_) {
    if (worker->status && !worker->reported) deadline = std::min(deadline, worker->exited_at_ms + kPipeLingerMs);
    for (int64_t until : {worker->out.rest_until_ms, worker->err.rest_until_ms}) {
      if (until != 0) deadline = std::min(deadline, until);
    }
  }
  return static_cast<int>(std::clamp<int64_t>(deadline - now, 0, 60'000));
}

bool Agent::finished() const {
  if (!pending_spawns_.empty() && !head_gone_) return false;
  for (const auto& [id, worker] : workers_) {
    if (!worker->reported) return false;
  }
  if (head_gone_) return true;
  return shutdown_requested_ && relays_done() && outbox_.empty();
}

int Agent::run() {
  (void)posix::set_nonblocking(kStdin);
  (void)posix::set_nonblocking(kStdout);
  if (auto added = poller_.add(kStdin, posix::poll_readable, token(kHeadIn)); !added) {
    posix::write_stderr(fmt::format("muster agent: cannot watch stdin: {}\n", added.error().message));
    return 1;
  }
  outbox_.append(protocol::preamble_line(options_.nonce));
  send(make_hello(options_.node_name));
  while (!finished()) {
    auto events = poller_.wait(next_timeout());
    if (!events) {
      posix::write_stderr(fmt::format("muster agent: {}\n", events.error().message));
      return 1;
    }
    for (const auto& event : *events) {
      auto kind = static_cast<Kind>(event.token >> 32);
      auto id = static_cast<uint32_t>(event.token);
      if (kind == kHeadIn) on_head_readable();
      if (kind == kHeadOut) flush_to_head();
      auto it = workers_.find(id);
      if ((kind == kWorkerOut || kind == kWorkerErr) && it != workers_.end()) {
        read_worker(*it->second, kind == kWorkerOut ? Stream::out : Stream::err);
      }
      if (kind == kChildOut || kind == kChildErr || kind == kChildIn) service_relays(event.token);
    }
    spawn_pending();
    wake_rested_pipes();
    service_relays(0);
    on_signals();
    reap_workers();
    report_finished_workers();
    on_timers();
    if (!head_gone_) flush_to_head();
  }
  if (!head_gone_) flush_to_head();
  // Whatever the workers left behind in their process groups (a `cmd &` in a shell worker) ends with us.
  signal_workers(protocol::kAllWorkers, SIGKILL);
  setup_.finish(head_gone_);  // (issue 27 item 12) the job's node directory goes if it ended well here (run_state.h)
  return head_gone_ ? 1 : 0;
}

}  // namespace

int run_agent(const AgentOptions& options) {
  posix::SignalBlock signals;
  auto poller = posix::Poller::create();
  if (!poller) {
    posix::write_stderr(fmt::format("muster agent: {}\n", poller.error().message));
    return 1;
  }
  auto guard = start_guard();
  if (!guard) {
    posix::write_stderr(fmt::format("muster agent: cannot start the guard: {}\n", guard.error().message));
    return 1;
  }
  int code = Agent(options, std::move(*poller), std::move(*guard)).run();
  return code;
}

}  // namespace muster::agent
