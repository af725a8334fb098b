#include "posix/system_info.h"

#include <netdb.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace muster::posix {

Result<std::string> kernel_release() {
  struct utsname names {};
  if (::uname(&names) != 0) return make_error(ErrorKind::io, "uname failed: {}", std::strerror(errno));
  return std::string(names.release);
}

long clock_ticks_per_second() {
  long ticks = ::sysconf(_SC_CLK_TCK);
  return ticks > 0 ? ticks : 100;
}

int online_cpus() {
  long count = ::sysconf(_SC_NPROCESSORS_ONLN);
  return count > 0 ? static_cast<int>(count) : 1;
}

int64_t physical_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<int64_t>(pages) * page_size;
}

Result<FilesystemInfo> filesystem_info(const std::string& path) {
  struct statfs info {};
  if (::statfs(path.c_str(), &info) != 0) {
    return make_error(ErrorKind::io, "statfs {} failed: {}", path, std::strerror(errno));
  }
  FilesystemInfo result;
  result.type_magic = static_cast<uint64_t>(info.f_type);
  result.total_bytes = static_cast<int64_t>(info.f_blocks) * static_cast<int64_t>(info.f_bsize);
  result.free_bytes = static_cast<int64_t>(info.f_bavail) * static_cast<int64_t>(info.f_bsize);
  return result;
}

Result<int64_t> memlock_limit() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_MEMLOCK, &limit) != 0) {
    return make_error(ErrorKind::io, "getrlimit(RLIMIT_MEMLOCK) failed: {}", std::strerror(errno));
  }
  if (limit.rlim_cur == RLIM_INFINITY) return int64_t{-1};
  return static_cast<int64_t>(limit.rlim_cur);
}

int64_t unix_time_ms() {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

Result<std::vector<std::string>> resolve_addresses(const std::string& name) {
  struct addrinfo hints {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;  // one entry per address rather than one per socket type
  struct addrinfo* list = nullptr;
  int status = ::getaddrinfo(name.c_str(), nullptr, &hints, &list);
  if (status != 0) return make_error(ErrorKind::unreachable, "cannot resolve {}: {}", name, ::gai_strerror(status));
  std::vector<std::string> ipv4, ipv6;
  for (auto* entry = list; entry != nullptr; entry = entry->ai_next) {
    char text[NI_MAXHOST];
    if (::getnameinfo(entry->ai_addr, entry->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) != 0) continue;
    auto& bucket = entry->ai_family == AF_INET ? ipv4 : ipv6;
    if (std::find(bucket.begin(), bucket.end(), text) == bucket.end()) bucket.emplace_back(text);
  }
  ::freeaddrinfo(list);
  ipv4.insert(ipv4.end(), ipv6.begin(), ipv6.end());
  return ipv4;
}

bool cpuinfo_has_aes(std::string_view cpuinfo) {
  size_t start = 0;
  while (start < cpuinfo.size()) {
    size_t end = cpuinfo.find('\n', start);
    if (end == std::string_view::npos) end = cpuinfo.size();
    std::string_view line = cpuinfo.substr(start, end - start);
    start = end + 1;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
    if (key != "flags" && key != "Features") continue;
    std::string words = " " + std::string(line.substr(colon + 1)) + " ";
    return words.find(" aes ") != std::string::npos;  // the first CPU speaks for all
  }
  return false;
}

bool cpu_has_aes() {
  std::ifstream in("/proc/cpuinfo");
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  return cpuinfo_has_aes(text.str());
}

}  // namespace muster::posix
