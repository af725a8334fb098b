// One worker process on this node, as the agent sees it: the process (its own process group), the read
// ends of its stdout/stderr pipes, and its exit status once reaped. Passive: the worker set (worker_set.h)
// reads the pipes when the loop says they are readable, and reaps every round.
#pragma once

#include <cstdint>
#include <optional>

#include "agent/worker_setup.h"
#include "posix/event_loop.h"
#include "posix/exit_status.h"
#include "posix/fd.h"
#include "posix/process.h"

namespace muster::agent {

// One of a worker's output pipes, as the agent reads it.
struct WorkerPipe {
  posix::Fd fd;                // invalid once EOF was read (or the pipe was abandoned)
  posix::EventLoop::FdWatch watch;  // declared after fd: leaves the loop before fd closes
  bool grown = false;          // it got a larger buffer (agent.cc grow_pipe)
  // A pipe fed in small pieces at a high rate rests a moment between reads (agent.cc rest_if_busy): when a read
  // last found bytes, and until when it is not watched (0: it is).
  int64_t read_ms = 0;
  int64_t rest_until_ms = 0;
};

struct Worker {
  uint32_t id = 0;
  uint32_t attempt = 0;  // the job's attempt that started it (SpawnWorker::attempt)
  posix::Process process;
  WorkerPipe out;
  WorkerPipe err;
  std::optional<posix::ExitStatus> status;
  int64_t exited_at_ms = 0;  // when status was reaped
  bool reported = false;     // WorkerExited sent
  bool stopped = false;      // the agent sent it a signal that ends it (a teardown, Ctrl-C)
  WorkerPaths paths;         // its files on this node (worker_setup.h); empty without diagnostics
  int64_t started_ms = 0;
  int64_t progress_mtime_ns = 0;  // the progress file's mtime when last looked at
  uint64_t oom_kills_at_start = 0;  // the node's OOM-kill count when it was spawned

  bool pipes_closed() const { return !out.fd.valid() && !err.fd.valid(); }
};

}  // namespace muster::agent
