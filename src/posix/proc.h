// What /proc says about a process: enough to recognise it again (its start time, which a reused pid does not
// share), whether it catches a signal (SigCgt: muster sends the stack signal only to a process that registered
// for it, since its default action is to terminate), its CPU time, and where in the kernel it waits. Reads
// only; every function returns nullopt / empty when the process is gone or /proc does not say.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "util/result.h"

namespace muster::posix {

// Field 22 of /proc/PID/stat: start time in clock ticks since boot.
std::optional<uint64_t> process_start_time(int pid);

// True when the process `pid` exists and started at `start_time` (not a later process with a reused pid).
bool same_process(int pid, uint64_t start_time);
// The same, and still running: not a zombie (a killed process whose parent has not reaped it yet, as a detached
// head is until init gets to it).
bool process_alive(int pid, uint64_t start_time);

// The real user id of the process (Uid: in /proc/PID/status).
std::optional<uint32_t> process_uid(int pid);
// Its command name (/proc/PID/comm: the executable's name, at most 15 bytes), "" when gone.
std::string process_name(int pid);
// This boot of the machine (/proc/sys/kernel/random/boot_id): a pid and start time mean the same process only
// within one boot, on one machine. "" when unknown.
std::string boot_id();

// Whether the process has a handler for `signal` (bit signal-1 of SigCgt in /proc/PID/status).
bool catches_signal(int pid, int signal);

// utime + stime of the process, in clock ticks.
std::optional<uint64_t> cpu_ticks(int pid);

// A line per thread saying where it waits in the kernel: "TID state wchan" (/proc/PID/task/*/stat and wchan),
// for a stack when no debugger is available.
std::string kernel_wait_summary(int pid);

// The machine's count of processes the kernel's OOM killer has killed since boot (/proc/vmstat oom_kill),
// readable by every user (the kernel log that names them is root's on most distributions).
std::optional<uint64_t> oom_kill_count();

// kill(pid, sig) to one process (not its group). ESRCH (gone) is an error here: the caller wants to know.
Result<void> signal_process(int pid, int sig);

// The number of the first real-time signal (SIGRTMIN) in this C library.
int first_realtime_signal();

}  // namespace muster::posix
