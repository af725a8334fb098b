#include "posix/kernel_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace muster::posix {
namespace {

constexpr size_t kMaxPartial = 64 << 10;  // a "line" longer than this is dropped

// One line of the log without its newline: a /dev/kmsg record's first line, a dmesg line or a bare message.
// false for a continuation line (" SUBSYSTEM=...") and for blank ones.
bool parse_line(std::string_view line, KernelLogLine& out) {
  if (line.empty() || line.front() == ' ') return false;
  out.monotonic_ms = -1;
  size_t semicolon = line.find(';');
  if (semicolon != std::string_view::npos && line.substr(0, semicolon).find_first_not_of("0123456789,-+cC") ==
                                                 std::string_view::npos) {
    // "priority,sequence,usec,flags;message"
    std::string_view header = line.substr(0, semicolon);
    size_t first = header.find(','), second = header.find(',', first == std::string_view::npos ? first : first + 1);
    if (second != std::string_view::npos) {
      int64_t usec = 0;
      std::string_view field = header.substr(second + 1);
      auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), usec);
      if (error == std::errc()) out.monotonic_ms = usec / 1000;
    }
    line.remove_prefix(semicolon + 1);
  } else if (line.front() == '[') {
    // dmesg: "[  123.456789] message"
    size_t close = line.find(']');
    if (close != std::string_view::npos) {
      std::string_view stamp = line.substr(1, close - 1);
      while (!stamp.empty() && stamp.front() == ' ') stamp.remove_prefix(1);
      double seconds = 0;
      auto [end, error] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), seconds);
      if (error == std::errc()) {
        out.monotonic_ms = static_cast<int64_t>(seconds * 1000);
        line.remove_prefix(close + 1);
        if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      }
    }
  }
  out.text = std::string(line);
  return !out.text.empty();
}

// Splits `chunk` (after what `partial` holds) into lines, calling `take` for each whole one; keeps a last line
// without its newline in `partial` (a FIFO or file read that ended mid-line; a /dev/kmsg record always ends in one).
template <typename Take>
void split_chunk(std::string& partial, std::string_view chunk, Take take) {
  partial.append(chunk);
  size_t start = 0;
  for (size_t newline; (newline = partial.find('\n', start)) != std::string::npos; start = newline + 1) {
    KernelLogLine line;
    if (parse_line(std::string_view(partial).substr(start, newline - start), line)) take(std::move(line));
  }
  partial.erase(0, start);
  if (partial.size() > kMaxPartial) partial.clear();
}

}  // namespace

Result<std::vector<KernelLogLine>> kernel_log_lines(const std::string& needle, int64_t since_monotonic_ms,
                                                    size_t max_lines, const std::string& path) {
  Fd kmsg(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!kmsg.valid()) {
    return make_error(ErrorKind::io, "cannot read the kernel log ({}): {}", path, std::strerror(errno));
  }
  std::vector<KernelLogLine> lines;
  std::string partial;
  auto take = [&](KernelLogLine line) {
    if (line.text.find(needle) == std::string::npos) return;
    if (line.monotonic_ms >= 0 && line.monotonic_ms < since_monotonic_ms) return;
    lines.push_back(std::move(line));
    if (lines.size() > max_lines) lines.erase(lines.begin());
  };
  char record[8192];
  for (int bounded = 0; bounded < 1'000'000; ++bounded) {  // the buffer holds a few thousand records
    ssize_t n = ::read(kmsg.get(), record, sizeof(record));
    if (n < 0 && errno == EPIPE) continue;  // a record was overwritten while we read: go on with the next
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;                      // EAGAIN: the end of what is there (0: a file's end)
    split_chunk(partial, std::string_view(record, static_cast<size_t>(n)), take);
  }
  if (!partial.empty()) split_chunk(partial, "\n", take);
  return lines;
}

Result<KernelLogReader> KernelLogReader::open_at_end(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return make_error(ErrorKind::io, "cannot read the kernel log ({}): {}", path, std::strerror(errno));
  // /dev/kmsg and files: from the end on. A FIFO cannot seek (ESPIPE): it only ever holds what comes.
  (void)::lseek(fd.get(), 0, SEEK_END);
  return KernelLogReader(std::move(fd));
}

std::vector<KernelLogLine> KernelLogReader::read_new(size_t max_lines, bool* ended) {
  std::vector<KernelLogLine> lines;
  char record[8192];
  for (int bounded = 0; bounded < 4096 && lines.size() < max_lines; ++bounded) {
    ssize_t n = ::read(fd_.get(), record, sizeof(record));
    if (n < 0 && (errno == EPIPE || errno == EINTR)) continue;  // EPIPE: overwritten before we read it
    if (n < 0) break;                                            // EAGAIN: nothing more now
    if (n == 0) {
      *ended = true;
      break;
    }
    split_chunk(partial_, std::string_view(record, static_cast<size_t>(n)),
                [&](KernelLogLine line) { lines.push_back(std::move(line)); });
  }
  return lines;
}

}  // namespace muster::posix
