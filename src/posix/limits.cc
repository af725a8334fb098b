#include "posix/limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "posix/original_limit.h"

namespace muster::posix {
namespace {

std::atomic<uint64_t> found_soft_limit{0};

uint64_t from_rlim(rlim_t value) { return value == RLIM_INFINITY ? OpenFileLimit::kUnlimited : value; }

// The kernel's ceiling for any process's descriptor count (an unlimited hard limit still stops here).
rlim_t kernel_ceiling() {
  std::ifstream in("/proc/sys/fs/nr_open");
  rlim_t value = 0;
  if (in >> value && value > 0) return value;
  return 1 << 20;  // the kernel's default nr_open
}

}  // namespace

OpenFileLimit open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return {};
  return {from_rlim(limit.rlim_cur), from_rlim(limit.rlim_max)};
}

OpenFileLimit raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return {};
  uint64_t expected = 0;
  found_soft_limit.compare_exchange_strong(expected, from_rlim(limit.rlim_cur));
  rlim_t target = limit.rlim_max == RLIM_INFINITY ? kernel_ceiling() : limit.rlim_max;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < target) {
    rlimit raised{target, limit.rlim_max};
    (void)::setrlimit(RLIMIT_NOFILE, &raised);
  }
  return open_file_limit();
}

OpenFileLimit child_open_file_limit() {
  OpenFileLimit now = open_file_limit();
  uint64_t found = found_soft_limit.load();
  if (found != 0 && found < now.soft) now.soft = found;
  return now;
}

OpenFileLimit child_process_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NPROC, &limit) != 0) return {};
  uint64_t pid_max = 0;
  std::ifstream in("/proc/sys/kernel/pid_max");
  if (!(in >> pid_max) || pid_max == 0) pid_max = OpenFileLimit::kUnlimited;
  return {std::min<uint64_t>(from_rlim(limit.rlim_cur), pid_max), std::min<uint64_t>(from_rlim(limit.rlim_max), pid_max)};
}

std::string limit_text(uint64_t value) {
  return value == OpenFileLimit::kUnlimited ? std::string("unlimited") : std::to_string(value);
}

uint64_t process_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NPROC, &limit) != 0) return OpenFileLimit::kUnlimited;
  return from_rlim(limit.rlim_cur);
}

Error fork_failure(const std::string& what, int code) {
  std::string text = fmt::format("cannot start {}: fork: {}", what, std::strerror(code));
  if (code == EAGAIN) {
    text += fmt::format(" (the limit on your user's processes, RLIMIT_NPROC, is {} here: see `ulimit -u`, raise it "
                        "with `nproc` in /etc/security/limits.conf and log in again; or the system's or the "
                        "cgroup's process limit is reached: pids.max, kernel.threads-max)",
                        limit_text(process_limit()));
  }
  Error error = make_error(ErrorKind::io, "{}", text);
  error.sys = code;
  return error;
}

namespace detail {
uint64_t original_open_file_soft_limit() { return found_soft_limit.load(); }
}  // namespace detail

}  // namespace muster::posix
