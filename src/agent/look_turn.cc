#include "agent/look_turn.h"

#include "posix/file.h"

namespace muster::agent {

std::optional<posix::Fd> take_turn(const std::string& stamp, int64_t now_ns, int64_t every_ns) {
  auto seen = posix::lstat_path(stamp);
  if (seen && *seen && (*seen)->mtime_ns <= now_ns && now_ns - (*seen)->mtime_ns < every_ns) return std::nullopt;
  auto file = posix::open_append(stamp, false, 0600);
  if (!file) return std::nullopt;
  auto mine = posix::try_lock_exclusive(file->get());
  if (!mine || !*mine) return std::nullopt;  // another process is looking
  (void)posix::set_fd_meta(file->get(), 0600, now_ns);
  return std::move(*file);
}

}  // namespace muster::agent
