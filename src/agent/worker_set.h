// WorkerSet: the workers of this node, as the agent keeps them (docs/agent-protocol.md sections 5-7 and 10). It
// starts them (in slices of kSpawnSliceMs per loop round, so a node asked for 1,000 ranks still reads the head and
// sends its heartbeats between slices), reads their pipes straight into the head link's outbox as Output frames,
// reaps them, reports each one's end once its pipes are drained, signals their process groups, and takes their
// stacks. It owns every worker's process group until that group is gone.
//
// Attempts: every worker belongs to the attempt that started it. Terminate{attempt} sends SIGTERM to the workers
// of that attempt and earlier ones and SIGKILL to what is left at the grace deadline — a deadline that belongs to
// that attempt alone, so the next attempt's workers never get it. Once every worker of the attempt has been
// reported and none of their process groups is left on the node, the set says AttemptCleared{attempt}: the head
// starts the next attempt only then.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "agent/guard.h"
#include "agent/head_link.h"
#include "agent/stack_dumper.h"
#include "agent/worker.h"
#include "agent/worker_setup.h"
#include "posix/event_loop.h"
#include "protocol/messages.h"

namespace muster::agent {

class WorkerSet {
 public:
  struct Options {
    bool in_container = false;               // messages say "in this container"
    std::function<size_t()> relay_children;  // agents this one started below it (3 fds each; pipe_failure)
    // Each chunk of a worker's output as it is read (telemetry's step lines); may be empty.
    std::function<void(uint32_t worker, protocol::Stream stream, std::string_view bytes)> on_output;
    // Just before a worker's WorkerExited goes out, with when it was reaped (telemetry sends its last steps first).
    std::function<void(uint32_t worker, int64_t exited_at_ms)> before_exited;
    // A queued worker's request just before it starts, in the start's time slice (telemetry adds its step files
    // there: made for 1,000 workers in one round, they held up the agent's heartbeats on a slow node).
    std::function<void(protocol::SpawnWorker& request)> before_start;
  };
  WorkerSet(posix::EventLoop& loop, HeadLink& head, Guard& guard, WorkerSetup& setup, StackDumper& dumper,
            Options options);

  void spawn(protocol::SpawnWorker request);  // queued; started by round()
  void signal(uint32_t worker, int signal, uint32_t attempt = protocol::kAllAttempts);
  void terminate(uint32_t attempt, int grace_ms);
  void dump_stacks(const protocol::DumpStacks& request);
  void throttle(bool throttled);
  // The head is gone: nothing queued starts, output is read and dropped, every worker is stopped.
  void head_gone(int grace_ms);

  // Once per loop round: a slice of queued spawns, rested pipes, reaping, reports, progress files, stack dumps,
  // kill deadlines, cleared attempts.
  void round(int64_t now);
  // When round() next has something to do without an event (0: at once).
  int64_t next_deadline(int64_t now) const;
  bool all_reported() const;
  // Every worker it holds: id, pid, process group, and whether it still runs (telemetry).
  template <typename Visit>
  void each_worker(Visit&& visit) const {
    for (const auto& [id, worker] : workers_) visit(id, worker->process.pid(), worker->process.pgid(), !worker->status);
  }
  void kill_all();  // SIGKILL to every group still ours (the agent's exit)

 private:
  void spawn_pending();
  void drop_pending(uint32_t id, int signal);
  void start(const protocol::SpawnWorker& request);
  void read(Worker& worker, protocol::Stream stream);
  void rest_if_busy(Worker& worker, protocol::Stream stream, size_t bytes);
  void wake_rested_pipes(int64_t now);
  void grow_pipe(WorkerPipe& pipe);
  void close_pipe(WorkerPipe& pipe);
  void watch_pipe(Worker& worker, protocol::Stream stream);
  void reap();
  void report_finished(int64_t now);
  void send_notes(const Worker& worker);
  void check_progress(int64_t now);
  void fire_kill_deadlines(int64_t now);
  void check_cleared(int64_t now);
  void signal_groups(const std::function<bool(const Worker&)>& chosen, int signal);

  posix::EventLoop& loop_;
  HeadLink& head_;
  Guard& guard_;
  WorkerSetup& setup_;
  StackDumper& dumper_;
  Options options_;
  std::map<uint32_t, std::unique_ptr<Worker>> workers_;
  std::deque<protocol::SpawnWorker> pending_;
  std::map<uint32_t, int64_t> kill_at_;  // attempt -> SIGKILL deadline for its workers (and earlier attempts')
  std::set<uint32_t> clearing_;          // attempts told to end, not yet cleared
  int64_t next_clear_check_ms_ = 0;
  bool throttled_ = false;
  bool head_gone_ = false;
  bool setup_error_sent_ = false;
  int64_t next_progress_check_ms_ = 0;
  int session_;
  std::vector<std::string> base_env_;  // the node's environment, under every worker's own
};

}  // namespace muster::agent
