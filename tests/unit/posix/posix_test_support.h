// Helpers for the real-process tests of src/posix: every wait is bounded, and every child a test starts
// is killed (with its group) and reaped even when an assertion fails halfway.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "posix/clock.h"
#include "posix/fd.h"
#include "posix/pipe.h"
#include "posix/poller.h"
#include "posix/process.h"

namespace muster::posix::testing {

// Owns a Process for a test; on destruction kills the group (or the child) with SIGKILL and reaps it.
class ChildGuard {
 public:
  explicit ChildGuard(Process process) : process_(std::move(process)) {}
  ~ChildGuard() {
    if (process_.pid() > 0 && !process_.reaped()) {
      (void)process_.signal(SIGKILL);
      ::kill(process_.pid(), SIGKILL);  // also when the group is not what the test expected
      process_.wait();
    }
  }
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  Process& operator*() { return process_; }
  Process* operator->() { return &process_; }

 private:
  Process process_;
};

// Polls try_wait() until the child exits or timeout_ms passes; nullopt if it is still running.
inline std::optional<ExitStatus> wait_for(Process& process, int timeout_ms) {
  int64_t deadline = monotonic_ms() + timeout_ms;
  for (;;) {
    if (auto status = process.try_wait()) return status;
    if (monotonic_ms() >= deadline) return std::nullopt;
    ::usleep(2000);
  }
}

// Reads `fd` until EOF, giving up after timeout_ms (nullopt). Makes `fd` non-blocking.
inline std::optional<std::string> read_until_eof(int fd, int timeout_ms) {
  int64_t deadline = monotonic_ms() + timeout_ms;
  auto poller = Poller::create();
  if (!poller || !set_nonblocking(fd) || !poller->add(fd, poll_readable, 0)) return std::nullopt;
  std::string out;
  char buffer[65536];
  for (;;) {
    auto got = read_some(fd, buffer);
    if (!got) return std::nullopt;
    if (got->eof) return out;
    out.append(buffer, got->bytes);
    if (got->would_block) {
      if (monotonic_ms() >= deadline) return std::nullopt;
      if (!poller->wait(timeout_until(deadline))) return std::nullopt;
    }
  }
}

// Reads the first line (without '\n') from `fd`, giving up after timeout_ms. Bytes after the newline
// are dropped, so use it only on streams whose first line is all that matters.
inline std::optional<std::string> read_line(int fd, int timeout_ms) {
  int64_t deadline = monotonic_ms() + timeout_ms;
  auto poller = Poller::create();
  if (!poller || !set_nonblocking(fd) || !poller->add(fd, poll_readable, 0)) return std::nullopt;
  std::string line;
  char c = 0;
  while (monotonic_ms() < deadline) {
    auto got = read_some(fd, std::span<char>(&c, 1));
    if (!got || got->eof) return std::nullopt;
    if (got->would_block) {
      if (!poller->wait(timeout_until(deadline))) return std::nullopt;
      continue;
    }
    if (c == '\n') return line;
    line.push_back(c);
  }
  return std::nullopt;
}

// Runs `options` with stdout captured; nullopt if it cannot start or takes longer than timeout_ms.
struct Captured {
  ExitStatus status;
  std::string out;
};
inline std::optional<Captured> run_captured(SpawnOptions options, int timeout_ms = 10000) {
  auto pipe = make_pipe();
  if (!pipe) return std::nullopt;
  options.stdout_fd = pipe->write.get();
  auto spawned = spawn(options);
  if (!spawned) return std::nullopt;
  ChildGuard child(std::move(*spawned));
  pipe->write.reset();
  auto out = read_until_eof(pipe->read.get(), timeout_ms);
  if (!out) return std::nullopt;
  auto status = wait_for(*child, timeout_ms);
  if (!status) return std::nullopt;
  return Captured{*status, *out};
}

inline SpawnOptions shell(const std::string& script) {
  SpawnOptions options;
  options.argv = {"/bin/sh", "-c", script};
  return options;
}

// True once `pid` no longer runs: it does not exist, or it is a zombie (dead, waiting for a parent
// that may be an init which never reaps).
inline bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = content.rfind(')');
  if (paren == std::string::npos || paren + 2 >= content.size()) return !stat.is_open();
  char state = content[paren + 2];
  return state == 'Z' || state == 'X';
}

inline bool gone_within(pid_t pid, int timeout_ms) {
  int64_t deadline = monotonic_ms() + timeout_ms;
  while (!process_gone(pid)) {
    if (monotonic_ms() >= deadline) return false;
    ::usleep(5000);
  }
  return true;
}

}  // namespace muster::posix::testing
