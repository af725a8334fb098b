// Facts about this machine that `muster doctor` reports: kernel release, CPUs, memory, file systems,
// resource limits, the wall clock and name resolution. Each call only reads; none keeps anything open.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::posix {

// uname(2)'s release field: "6.1.0-18-amd64".
Result<std::string> kernel_release();

// CPUs online now (sysconf), at least 1.
int online_cpus();

// The kernel's clock ticks per second (USER_HZ, sysconf(_SC_CLK_TCK)): the unit of /proc's CPU times.
long clock_ticks_per_second();

// Physical memory in bytes (sysconf: the kernel's MemTotal), 0 when unknown.
int64_t physical_memory_bytes();

struct FilesystemInfo {
  uint64_t type_magic = 0;  // statfs f_type: 0xEF53 ext4, 0x6969 nfs, ... (see doctor/node/filesystem_type.h)
  int64_t total_bytes = 0;
  int64_t free_bytes = 0;  // available to an unprivileged user (f_bavail)
};

// statfs(2) of the file system holding `path`.
Result<FilesystemInfo> filesystem_info(const std::string& path);

// RLIMIT_MEMLOCK's soft limit in bytes; -1 when unlimited.
Result<int64_t> memlock_limit();

// The wall clock (CLOCK_REALTIME) in milliseconds since 1970. For reporting clock skew only; deadlines use
// clock.h's monotonic_ms().
int64_t unix_time_ms();

// The addresses getaddrinfo(3) gives for `name` as numeric strings, IPv4 first, each once, otherwise in the
// resolver's order. An error when the name does not resolve.
Result<std::vector<std::string>> resolve_addresses(const std::string& name);

// Whether this CPU has AES instructions (x86 AES-NI: "aes" in /proc/cpuinfo's flags; ARMv8: "aes" in its
// Features), which make AES-GCM the fastest cipher ssh and OpenSSL offer. False when /proc/cpuinfo cannot be read.
bool cpu_has_aes();
// The same decision on the text of a /proc/cpuinfo (for tests).
bool cpuinfo_has_aes(std::string_view cpuinfo);

}  // namespace muster::posix
