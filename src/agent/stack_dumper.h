// Takes the stacks of the agent's workers when the head asks (DumpStacks, docs/agent-protocol.md section 10),
// best source first:
//   1. Python: the worker's stack hook (python/sitecustomize.py) is signalled — only after its marker file
//      names this very process (pid and start time) and /proc says it catches the signal, since a real-time
//      signal's default action is to terminate — and every thread's stack is read from what it appended. When
//      the hook goes on to dump PyTorch's NCCL flight recorder (its "muster-flight-recorder begin" line), the
//      answer waits for its "end" line, up to 10 s from the signal, so the dump is whole before a stalled job
//      is stopped.
//   2. native: `eu-stack -p PID` (elfutils), else `gdb -batch -p PID -ex 'thread apply all bt'`, when installed
//      (a non-Python worker, or a Python one holding the GIL in C so its hook cannot run).
//   3. kernel: where each thread waits in the kernel (/proc/PID/task/*/wchan), which needs nothing.
// Passive and never blocking: start() begins, poll() advances every request (reading files, reaping the
// debugger) and returns the answers that are complete; the agent's loop calls it every round while busy().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "posix/fd.h"
#include "posix/process.h"
#include "protocol/messages.h"

namespace muster::agent {

class StackDumper {
 public:
  explicit StackDumper(int signal);
  ~StackDumper();
  StackDumper(const StackDumper&) = delete;
  StackDumper& operator=(const StackDumper&) = delete;

  // Begins taking `pid`'s stack for (request, worker); `stacks_dir` is where its hook writes ("" = no hook).
  void start(uint32_t request, uint32_t worker, int pid, const std::string& stacks_dir, int64_t now_ms);
  std::vector<protocol::WorkerStack> poll(int64_t now_ms);
  bool busy() const { return !jobs_.empty(); }
  // When poll() must run again at the latest.
  int64_t next_deadline(int64_t now_ms) const;

 private:
  struct Job;
  void start_native(Job& job, int64_t now_ms);
  bool advance(Job& job, int64_t now_ms);  // true when the job's answer is ready

  int signal_;
  std::vector<std::unique_ptr<Job>> jobs_;
};

// The hook's dump with the hook's own thread (the one that wrote it) left out, and its marker lines dropped.
std::string clean_python_dump(const std::string& text, const std::string& helper_thread);

}  // namespace muster::agent
