// Process: one child started by spawn(), owned by exactly one object (move-only), that signals it and
// collects its exit status. It is passive: it never waits on its own (except in wait(), meant for
// teardown and tests); the event loop learns about exits from SIGCHLD (see SignalBlock) and then calls
// try_wait() on every live Process.
//
// Destroying a Process neither kills nor reaps the child. Whoever owns it must, before dropping it,
// either see try_wait()/wait() return a status, or deliberately hand the pid elsewhere; otherwise an
// exited child stays a zombie until muster exits, and a running one is left alone (by design: a
// destructor that kills would turn every early return into an unannounced SIGKILL). To stop a child:
// signal(SIGTERM), keep polling try_wait(), signal(SIGKILL) when the grace period ends.
//
// spawn() forks and execs (not posix_spawn). One code path serves every option because PR_SET_PDEATHSIG
// must be set *in the child* between fork and exec, which posix_spawn cannot do, and two spawn paths would
// mean two sets of semantics to test. Between fork and exec the child calls only async-signal-safe system
// calls on data prepared beforehand, so spawn() is safe in a multi-threaded process. spawn() returns only
// after the child has exec'ed (or failed to): it reads a CLOEXEC error pipe until EOF, so a missing
// program, a bad cwd, etc. come back as an error naming the program, never as a child exiting with 127.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "posix/exit_status.h"
#include "util/result.h"

namespace muster::posix {

struct SpawnOptions {
  std::vector<std::string> argv{};  // argv[0] is the program; must not be empty
  // The child's complete environment as KEY=VALUE; nullopt inherits muster's environment.
  std::optional<std::vector<std::string>> env{};
  std::string cwd{};  // empty: muster's working directory
  // Parent fds to become the child's 0/1/2 (the parent keeps its copies; close them after spawn).
  int stdin_fd = -1;   // -1: /dev/null
  int stdout_fd = -1;  // -1: inherit muster's
  int stderr_fd = -1;  // -1: inherit muster's
  // The child leads a new process group (pgid == pid), so signal() reaches everything it starts.
  bool new_process_group = true;
  // The child leads a new session (setsid), hence also a new group. Besides detaching it from the terminal,
  // this gives it its own scheduler autogroup: many concurrent ssh clients then share the CPU as pdsh's do.
  bool new_session = false;
  // Delivered to the child when the *thread* that called spawn() exits (PR_SET_PDEATHSIG): call spawn
  // from the event-loop thread only. Checked against getppid() after setting it, so a parent that died
  // during spawn still takes the child down. 0: none. Lost across exec of a set-uid program.
  int parent_death_signal = 0;
  // Look argv[0] up in PATH when it contains no '/'. PATH is taken from `env` when that is given and
  // sets one, else from muster's environment, else "/usr/local/bin:/usr/bin:/bin". Unlike execvp, a
  // file without #! is not retried with /bin/sh.
  bool search_path = true;
  // Under Yama's restricted ptrace (ptrace_scope 1, Ubuntu's default) only ancestors may attach a debugger:
  // this lets `ptracer` and its descendants (the agent's stack tools) attach (PR_SET_PTRACER). 0: unchanged.
  int ptracer = 0;
};

// What the child gets besides the options: the signal mask muster had before SignalBlock, every signal
// at its default disposition, and no fd but 0, 1 and 2 (everything else is closed on exec).
class Process {
 public:
  Process() = default;
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() = default;  // does not kill, does not reap: see the comment at the top

  int pid() const { return pid_; }
  // The child's process group id (== pid), or 0 when it shares muster's group.
  int pgid() const { return pgid_; }
  bool reaped() const { return status_.has_value(); }

  // Sends `sig` to the whole process group when the child has one (kill(-pgid)), else to the child
  // only. The group is signalled even after the leader was reaped: grandchildren may still be in it, and
  // the kernel does not reuse the id while any member lives; but once they are all gone it may, so a caller
  // that signals a reaped child's group checks first that the group is still its own (process_groups.h).
  // A child without a group is not signalled once reaped (its pid may be reused). "Nobody left to signal"
  // (ESRCH) is success.
  Result<void> signal(int sig);

  // The exit status if the child has exited (reaping it), nullopt while it runs. Never blocks.
  // Once reaped, returns the same status on every call. Exited{-1} means the status was lost because
  // the child was reaped behind muster's back (SIGCHLD set to SIG_IGN without a SignalBlock, or a stray
  // waitpid(-1)).
  std::optional<ExitStatus> try_wait();
  // Blocks until the child exits. For teardown and tests; an event loop uses try_wait().
  ExitStatus wait();

 private:
  friend Result<Process> spawn(const SpawnOptions& options);
  friend Result<std::optional<Process>> fork_detached(int output_fd, const std::vector<int>& keep);
  friend Result<Process> fork_call(int stdin_fd, const char* name, int (*body)());
  Process(int pid, int pgid) : pid_(pid), pgid_(pgid) {}
  std::optional<ExitStatus> reap(bool block);

  int pid_ = -1;  // a pid_t; plain int keeps <sys/types.h> out of other layers
  int pgid_ = 0;
  std::optional<ExitStatus> status_;
};

Result<Process> spawn(const SpawnOptions& options);

// A child that runs `body` without exec'ing anything, then _exits with what it returns: forked in a new process
// group, named `name` (its comm, what ps and pgrep show; the command line stays the parent's), with `stdin_fd` as its 0, /dev/null as 1 and 2, no other fd, every signal at its default and the mask
// muster had before SignalBlock. For a small helper of muster's own (the agent's guard): an exec of muster costs
// its dynamic loading again (~1 ms of CPU on a VM where cpuid traps, per node at every start). The child runs
// ordinary code (allocation included), so call this only while the process has one thread.
Result<Process> fork_call(int stdin_fd, const char* name, int (*body)());

// kill(-pgid, sig) for a group muster does not hold a Process for (the agent's guard). ESRCH is success.
Result<void> signal_group(int pgid, int sig);

}  // namespace muster::posix
