#include "agent/worker_set.h"

#include <algorithm>
#include <cerrno>
#include <csignal>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/environment.h"
#include "posix/file.h"
#include "posix/limits.h"
#include "posix/pipe.h"
#include "posix/proc.h"
#include "posix/process_groups.h"
#include "posix/signals.h"

namespace muster::agent {
namespace {

using protocol::Stream;

constexpr size_t kGrownPipeBytes = 1u << 20;  // a busy worker's pipe (grow_pipe)
constexpr int64_t kPipeLingerMs = 200;        // after a worker exits, wait this long for its pipes' EOF
constexpr int64_t kProgressCheckMs = 1000;    // how often the workers' progress files are looked at
// rest_if_busy: a pipe drained within kBusyGapMs of the last read is not watched for kRestMs, so the next read
// takes what a fast writer wrote meanwhile in one piece.
constexpr int64_t kBusyGapMs = 2;
constexpr int64_t kRestMs = 2;
constexpr int64_t kSpawnSliceMs = 20;       // spawn_pending
constexpr int64_t kClearCheckMs = 20;       // how often a terminated attempt's groups are looked for in /proc

WorkerPipe& pipe_of(Worker& worker, Stream stream) { return stream == Stream::out ? worker.out : worker.err; }

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

bool in_attempt(const Worker& worker, uint32_t attempt) {
  return attempt == protocol::kAllAttempts || worker.attempt <= attempt;
}

bool ends_a_process(int signal) { return signal == SIGTERM || signal == SIGKILL || signal == SIGINT || signal == SIGHUP; }

}  // namespace

WorkerSet::WorkerSet(posix::EventLoop& loop, HeadLink& head, Guard& guard, WorkerSetup& setup, StackDumper& dumper,
                     Options options)
    : loop_(loop),
      head_(head),
      guard_(guard),
      setup_(setup),
      dumper_(dumper),
      options_(std::move(options)),
      session_(posix::current_session_id()),
      base_env_(posix::current_environment()) {}

void WorkerSet::spawn(protocol::SpawnWorker request) {
  if (head_gone_) return;
  pending_.push_back(std::move(request));
}

// Starts queued workers for at most kSpawnSliceMs, then lets the loop go round (the head's frames, heartbeats,
// output) before the next slice: spawning never holds up the agent's words to the head.
void WorkerSet::spawn_pending() {
  if (pending_.empty()) return;
  int64_t until = posix::monotonic_ms() + kSpawnSliceMs;
  do {
    protocol::SpawnWorker request = std::move(pending_.front());
    pending_.pop_front();
    start(request);
  } while (!pending_.empty() && posix::monotonic_ms() < until);
}

// Workers not started yet when a signal that ends them arrives are never started: each is reported as ended by
// that signal (a signal that does not end a process, SIGUSR1 say, leaves them queued).
void WorkerSet::drop_pending(uint32_t id, int signal) {
  if (!ends_a_process(signal)) return;
  std::erase_if(pending_, [&](const protocol::SpawnWorker& request) {
    if (id != protocol::kAllWorkers && id != request.worker) return false;
    head_.send(protocol::WorkerExited{request.worker, protocol::ExitHow::signaled, signal,
                                      fmt::format("not started: stopped by {} before it started",
                                                  posix::signal_name(signal))});
    return true;
  });
}

void WorkerSet::start(const protocol::SpawnWorker& request) {
  auto fail = [&](const std::string& why) {
    head_.send(protocol::WorkerExited{request.worker, protocol::ExitHow::failed_to_start, 127, why});
  };
  if (request.argv.empty()) return fail("empty command");
  if (auto it = workers_.find(request.worker); it != workers_.end() && !it->second->reported) {
    return fail(fmt::format("worker {} of attempt {} is still running on this node", request.worker,
                            it->second->attempt));
  }
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
    head_.send(protocol::AgentError{"no stack dumps or error files on this node: " + paths.error().message});
  }
  auto out = posix::make_pipe();
  auto err = posix::make_pipe();
  size_t children = options_.relay_children ? options_.relay_children() : 0;
  if (!out || !err) return fail(pipe_failure(out ? err.error() : out.error(), children));
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
  auto worker = std::make_unique<Worker>();
  worker->id = request.worker;
  worker->attempt = request.attempt;
  worker->process = std::move(*process);
  worker->out.fd = std::move(out->read);
  worker->err.fd = std::move(err->read);
  worker->paths = paths ? std::move(*paths) : WorkerPaths{};
  worker->started_ms = posix::monotonic_ms();
  worker->oom_kills_at_start = posix::oom_kill_count().value_or(0);
  // The guard learns the group before anything else can happen to the agent (its pipe is blocking and nearly
  // empty: the guard reads as fast as workers start).
  (void)posix::write_all(guard_.pipe.get(), std::to_string(worker->process.pgid()) + "\n");
  head_.send(protocol::WorkerStarted{request.worker, static_cast<uint32_t>(worker->process.pid())});
  Worker& added = *worker;
  workers_[request.worker] = std::move(worker);
  for (Stream stream : {Stream::out, Stream::err}) {
    (void)posix::set_nonblocking(pipe_of(added, stream).fd.get());
    watch_pipe(added, stream);
  }
}

void WorkerSet::watch_pipe(Worker& worker, Stream stream) {
  WorkerPipe& pipe = pipe_of(worker, stream);
  uint32_t id = worker.id;
  auto watch = loop_.watch(pipe.fd.get(), throttled_ ? 0 : posix::poll_readable, [this, id, stream](uint32_t) {
    auto it = workers_.find(id);
    if (it != workers_.end()) read(*it->second, stream);
  });
  if (watch) pipe.watch = std::move(*watch);
}

void WorkerSet::close_pipe(WorkerPipe& pipe) {
  pipe.watch.reset();
  pipe.fd.reset();
}

// Worker output is the agent's bulk: it is read straight into the outbox behind an Output header (no copy), and a
// pipe that comes back full gets a larger buffer once (grow_pipe), so a worker printing at full speed and the agent
// trade the CPU in large pieces rather than 64 KiB at a time.
void WorkerSet::read(Worker& worker, Stream stream) {
  WorkerPipe& pipe = pipe_of(worker, stream);
  constexpr size_t kHeader = protocol::kOutputHeaderSize;
  static char discard[protocol::kMaxOutputChunk];
  size_t total = 0;
  for (int round = 0; round < 16 && pipe.fd.valid(); ++round) {
    bool drop = head_.gone();
    std::span<char> into = drop ? std::span<char>(discard)
                                : head_.reserve(kHeader + protocol::kMaxOutputChunk).subspan(kHeader);
    auto got = posix::read_some(pipe.fd.get(), into);
    if (!got || got->eof) return close_pipe(pipe);
    if (got->would_block) return rest_if_busy(worker, stream, total);
    total += got->bytes;
    if (got->bytes == into.size()) grow_pipe(pipe);
    if (drop) continue;
    protocol::encode_output_header(worker.id, stream, got->bytes, into.data() - kHeader);
    head_.commit(kHeader + got->bytes);
  }
}

// A worker that prints fast through a tool writing 4 KiB at a time (`yes | head`, Python's buffered stdout) woke
// this loop, and sshd and the head behind it, once per 4 KiB: 12,000 Output frames for 50 MB. When a read
// drained the pipe and the one before it was just now, the pipe rests kRestMs (not watched; its buffer holds what
// arrives meanwhile), and the next read takes it in 64 KiB frames: output is at most kRestMs late, and only
// while it streams. A pipe that is idle between lines is read at once, as before.
void WorkerSet::rest_if_busy(Worker& worker, Stream stream, size_t bytes) {
  WorkerPipe& pipe = pipe_of(worker, stream);
  int64_t now = posix::monotonic_ms();
  bool busy = bytes > 0 && now - pipe.read_ms <= kBusyGapMs;
  if (bytes > 0) pipe.read_ms = now;
  if (!busy || head_.gone()) return;
  pipe.rest_until_ms = now + kRestMs;
  (void)pipe.watch.set_events(0);
}

// Pipes whose rest is over are watched again (unless the head is behind: throttle() watches them when it catches
// up) and read at once.
void WorkerSet::wake_rested_pipes(int64_t now) {
  for (auto& [id, worker] : workers_) {
    for (Stream stream : {Stream::out, Stream::err}) {
      WorkerPipe& pipe = pipe_of(*worker, stream);
      if (pipe.rest_until_ms == 0 || now < pipe.rest_until_ms) continue;
      pipe.rest_until_ms = 0;
      if (!pipe.fd.valid() || throttled_) continue;
      (void)pipe.watch.set_events(posix::poll_readable);
      read(*worker, stream);
    }
  }
}

// A pipe read full: its worker writes faster than the agent reads 64 KiB at a time. A 1 MiB buffer (the
// unprivileged maximum, /proc/sys/fs/pipe-max-size) cut the CPU of a 4 x 50 MB log run by ~12 % on the testbed
// (fewer wake-ups of worker, agent, sshd and head). Only such pipes grow: they count against the user's pipe
// budget (pipe-user-pages-soft), which quiet workers must not use up. A refusal leaves the pipe as it is.
void WorkerSet::grow_pipe(WorkerPipe& pipe) {
  if (pipe.grown) return;
  pipe.grown = true;
  (void)posix::set_pipe_size(pipe.fd.get(), kGrownPipeBytes);
}

void WorkerSet::throttle(bool throttled) {
  if (throttled == throttled_) return;
  throttled_ = throttled;
  for (auto& [id, worker] : workers_) {
    for (Stream stream : {Stream::out, Stream::err}) {
      WorkerPipe& pipe = pipe_of(*worker, stream);
      // A resting pipe is watched again when its rest ends (wake_rested_pipes).
      if (pipe.fd.valid() && (throttled || pipe.rest_until_ms == 0)) {
        (void)pipe.watch.set_events(throttled ? 0 : posix::poll_readable);
      }
    }
  }
}

void WorkerSet::reap() {
  for (auto& [id, worker] : workers_) {
    if (worker->status) continue;
    if (auto status = worker->process.try_wait()) {
      worker->status = *status;
      worker->exited_at_ms = posix::monotonic_ms();
      // Drain what the pipes already hold; EOF usually follows at once.
      read(*worker, Stream::out);
      read(*worker, Stream::err);
    }
  }
}

// A worker is reported once reaped and its pipes are at EOF, or abandoned after kPipeLingerMs (a daemon it
// started may hold them open forever).
void WorkerSet::report_finished(int64_t now) {
  for (auto& [id, worker] : workers_) {
    if (!worker->status || worker->reported) continue;
    if (!worker->pipes_closed() && now - worker->exited_at_ms < kPipeLingerMs) continue;
    close_pipe(worker->out);
    close_pipe(worker->err);
    worker->reported = true;
    protocol::WorkerExited exited{id, protocol::ExitHow::exited, 0, posix::describe(*worker->status)};
    if (auto* signaled = std::get_if<posix::Signaled>(&*worker->status)) {
      exited.how = protocol::ExitHow::signaled;
      exited.code = signaled->signal;
    } else {
      exited.code = std::get<posix::Exited>(*worker->status).code;
    }
    head_.send(exited);
    if (exited.how == protocol::ExitHow::exited && exited.code == 0) continue;
    // What the node can tell about it comes right after: the head starts the teardown on the WorkerExited, not
    // after a scan of the kernel's log. Notes still precede the attempt's AttemptCleared, which the head waits
    // for before it judges the failure.
    head_.flush();
    send_notes(*worker);
  }
}

// What the node can tell about a worker that failed, before its WorkerExited: its error file, the flight
// recorder's dumps, the kernel's OOM kill (worker_setup.h).
void WorkerSet::send_notes(const Worker& worker) {
  const auto* signaled = std::get_if<posix::Signaled>(&*worker.status);
  bool killed = signaled && signaled->signal == SIGKILL;
  // A worker that ended after the agent stopped it, other than by SIGKILL, was not ended by the OOM killer: no
  // scan of the kernel's log for it (a SIGKILL, ours at the grace or the kernel's, is still looked into).
  bool by_us = worker.stopped && !killed;
  for (auto& [key, text] : setup_.collect(worker.paths, worker.process.pid(), killed, worker.started_ms,
                                          worker.oom_kills_at_start, !by_us)) {
    head_.send(protocol::WorkerNote{worker.id, key, text});
  }
}

void WorkerSet::dump_stacks(const protocol::DumpStacks& request) {
  int64_t now = posix::monotonic_ms();
  for (auto& [id, worker] : workers_) {
    if (request.worker != protocol::kAllWorkers && request.worker != id) continue;
    if (worker->status) {
      head_.send(protocol::WorkerStack{request.request, id, protocol::StackKind::none, "the worker has ended", ""});
      continue;
    }
    dumper_.start(request.request, id, worker->process.pid(), worker->paths.stacks_dir, now);
  }
  for (auto& answer : dumper_.poll(now)) head_.send(answer);
}

// A worker that touched its progress file since the last look made progress (the head's stall detection).
void WorkerSet::check_progress(int64_t now) {
  if (now < next_progress_check_ms_) return;
  next_progress_check_ms_ = now + kProgressCheckMs;
  for (auto& [id, worker] : workers_) {
    if (worker->status || worker->paths.progress_file.empty()) continue;
    auto st = posix::lstat_path(worker->paths.progress_file);
    if (!st || !*st || (*st)->mtime_ns == worker->progress_mtime_ns) continue;
    worker->progress_mtime_ns = (*st)->mtime_ns;
    head_.send(protocol::WorkerProgress{id});
  }
}

// Exited workers' groups are signalled too (their children may still be running), but only while the group is
// still ours: once its leader is reaped the id may be reused (posix/process_groups.h).
void WorkerSet::signal_groups(const std::function<bool(const Worker&)>& chosen, int signal) {
  std::set<int> exited;
  for (auto& [id, worker] : workers_) {
    if (chosen(*worker) && worker->process.reaped()) exited.insert(worker->process.pgid());
  }
  std::set<int> ours = exited.empty() ? std::set<int>{} : posix::groups_still_in_session(exited, session_);
  for (auto& [id, worker] : workers_) {
    if (!chosen(*worker) || (worker->process.reaped() && !ours.contains(worker->process.pgid()))) continue;
    if (ends_a_process(signal)) worker->stopped = true;
    (void)worker->process.signal(signal);
  }
}

void WorkerSet::signal(uint32_t id, int signal, uint32_t attempt) {
  drop_pending(id, signal);
  signal_groups([&](const Worker& w) { return (id == protocol::kAllWorkers || id == w.id) && in_attempt(w, attempt); },
                signal);
}

void WorkerSet::terminate(uint32_t attempt, int grace_ms) {
  drop_pending(protocol::kAllWorkers, SIGTERM);
  signal_groups([&](const Worker& w) { return in_attempt(w, attempt); }, SIGTERM);
  int64_t deadline = posix::monotonic_ms() + grace_ms;
  auto [it, added] = kill_at_.emplace(attempt, deadline);
  if (!added) it->second = std::min(it->second, deadline);
  if (attempt != protocol::kAllAttempts) clearing_.insert(attempt);
  next_clear_check_ms_ = 0;
}

void WorkerSet::head_gone(int grace_ms) {
  head_gone_ = true;
  pending_.clear();  // nobody to start them for
  clearing_.clear();
  throttle(false);   // output is read and dropped from now on
  terminate(protocol::kAllAttempts, grace_ms);
}

void WorkerSet::fire_kill_deadlines(int64_t now) {
  for (auto it = kill_at_.begin(); it != kill_at_.end();) {
    if (now < it->second) {
      ++it;
      continue;
    }
    uint32_t attempt = it->first;
    signal_groups([&](const Worker& w) { return in_attempt(w, attempt); }, SIGKILL);
    it = kill_at_.erase(it);
  }
}

// An attempt is cleared once each of its workers (and earlier ones) was reported and none of their process
// groups is left in this agent's session; its workers are then forgotten, and its kill deadline with them.
void WorkerSet::check_cleared(int64_t now) {
  if (clearing_.empty() || now < next_clear_check_ms_) return;
  next_clear_check_ms_ = now + kClearCheckMs;
  while (!clearing_.empty()) {
    uint32_t attempt = *clearing_.begin();
    std::set<int> groups;
    for (auto& [id, worker] : workers_) {
      if (worker->attempt > attempt) continue;
      if (!worker->reported) return;
      groups.insert(worker->process.pgid());
    }
    if (!groups.empty() && !posix::groups_still_in_session(groups, session_).empty()) return;
    std::erase_if(workers_, [&](const auto& entry) { return entry.second->attempt <= attempt; });
    std::erase_if(kill_at_, [&](const auto& entry) { return entry.first <= attempt; });
    clearing_.erase(clearing_.begin());
    head_.send(protocol::AttemptCleared{attempt});
  }
}

void WorkerSet::round(int64_t now) {
  spawn_pending();
  wake_rested_pipes(now);
  reap();
  report_finished(now);
  check_progress(now);
  if (dumper_.busy()) {
    for (auto& answer : dumper_.poll(now)) head_.send(answer);
  }
  fire_kill_deadlines(now);
  check_cleared(now);
}

int64_t WorkerSet::next_deadline(int64_t now) const {
  if (!pending_.empty()) return now;
  int64_t deadline = std::min(next_progress_check_ms_, dumper_.next_deadline(now));
  for (const auto& [attempt, at] : kill_at_) deadline = std::min(deadline, at);
  if (!clearing_.empty()) deadline = std::min(deadline, std::max(next_clear_check_ms_, now));
  for (const auto& [id, worker] : workers_) {
    if (worker->status && !worker->reported) deadline = std::min(deadline, worker->exited_at_ms + kPipeLingerMs);
    for (int64_t until : {worker->out.rest_until_ms, worker->err.rest_until_ms}) {
      if (until != 0) deadline = std::min(deadline, until);
    }
  }
  return deadline;
}

bool WorkerSet::all_reported() const {
  if (!pending_.empty()) return false;
  return std::all_of(workers_.begin(), workers_.end(), [](const auto& entry) { return entry.second->reported; });
}

void WorkerSet::kill_all() {
  signal_groups([](const Worker&) { return true; }, SIGKILL);
}

}  // namespace muster::agent
