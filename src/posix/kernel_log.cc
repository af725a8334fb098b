#include "posix/kernel_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "posix/fd.h"

namespace muster::posix {

Result<std::vector<KernelLogLine>> kernel_log_lines(const std::string& needle, int64_t since_monotonic_ms,
                                                    size_t max_lines) {
  Fd kmsg(::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!kmsg.valid()) {
    return make_error(ErrorKind::io, "cannot read the kernel log (/dev/kmsg): {}", std::strerror(errno));
  }
  std::vector<KernelLogLine> lines;
  char record[8192];
  for (int bounded = 0; bounded < 1'000'000; ++bounded) {  // the buffer holds a few thousand records
    ssize_t n = ::read(kmsg.get(), record, sizeof(record) - 1);
    if (n < 0 && errno == EPIPE) continue;  // a record was overwritten while we read: go on with the next
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;                      // EAGAIN: the end of what is there
    std::string_view text(record, static_cast<size_t>(n));
    size_t semicolon = text.find(';');      // "priority,sequence,usec,flags;message\n continuation..."
    if (semicolon == std::string_view::npos) continue;
    std::string_view header = text.substr(0, semicolon);
    text.remove_prefix(semicolon + 1);
    text = text.substr(0, text.find('\n'));
    if (text.find(needle) == std::string_view::npos) continue;
    size_t first = header.find(','), second = header.find(',', first + 1);
    int64_t usec = std::atoll(std::string(header.substr(second + 1)).c_str());
    if (usec / 1000 < since_monotonic_ms) continue;
    lines.push_back({usec / 1000, std::string(text)});
    if (lines.size() > max_lines) lines.erase(lines.begin());
  }
  return lines;
}

}  // namespace muster::posix
