#include "posix/dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "posix/file_stat.h"

namespace muster::posix {
namespace {

int flags_for(DirOpen how) {
  int flags = O_DIRECTORY | O_CLOEXEC | (how.search_only ? O_PATH : O_RDONLY);
  return how.follow ? flags : flags | O_NOFOLLOW;
}

Result<Fd> open_dir_at(int parent, const char* name, DirOpen how) {
  int fd = ::openat(parent, name, flags_for(how));
  if (fd < 0) return sys_error(errno);
  return Fd(fd);
}

int64_t nanoseconds(const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

}  // namespace

Error sys_error(int code) { return Error{ErrorKind::io, std::strerror(code), code}; }

Result<Fd> regular_file_only(int fd) {
  Fd owned(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return sys_error(errno);
  if (S_ISREG(st.st_mode)) return owned;
  const char* kind = S_ISFIFO(st.st_mode)                        ? "a FIFO"
                     : S_ISDIR(st.st_mode)                       ? "a directory"
                     : S_ISSOCK(st.st_mode)                      ? "a socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                 : "not a regular file";
  return Error{ErrorKind::io, fmt::format("{}, not a regular file", kind), kNotRegularFile};
}

MtimeOnly::MtimeOnly(int64_t mtime_ns) {
  times[0].tv_sec = 0;
  times[0].tv_nsec = UTIME_OMIT;
  times[1].tv_sec = mtime_ns / 1'000'000'000;
  times[1].tv_nsec = mtime_ns % 1'000'000'000;
  if (times[1].tv_nsec < 0) {
    times[1].tv_nsec += 1'000'000'000;
    times[1].tv_sec -= 1;
  }
}

FileStat file_stat_of(const struct stat& st) {
  FileStat out;
  out.kind = S_ISREG(st.st_mode)   ? FileStat::Kind::regular
             : S_ISDIR(st.st_mode) ? FileStat::Kind::directory
             : S_ISLNK(st.st_mode) ? FileStat::Kind::symlink
                                   : FileStat::Kind::other;
  out.mode = static_cast<uint32_t>(st.st_mode & 07777);
  out.size = static_cast<uint64_t>(st.st_size);
  out.mtime_ns = nanoseconds(st.st_mtim);
  out.ctime_ns = nanoseconds(st.st_ctim);
  out.inode = static_cast<uint64_t>(st.st_ino);
  out.device = static_cast<uint64_t>(st.st_dev);
  out.uid = static_cast<uint32_t>(st.st_uid);
  out.links = static_cast<uint32_t>(st.st_nlink);
  out.blocks = static_cast<uint64_t>(st.st_blocks);
  return out;
}

Result<Dir> Dir::open(const std::string& path, DirOpen how) {
  how.follow = true;
  auto fd = open_dir_at(AT_FDCWD, path.c_str(), how);
  if (!fd) return fd.error();
  return Dir(std::move(*fd));
}

Result<Dir> Dir::open_dir(const std::string& name, DirOpen how) const {
  auto fd = open_dir_at(fd_.get(), name.c_str(), how);
  if (!fd) return fd.error();
  return Dir(std::move(*fd));
}

Result<Dir> Dir::reopen() const { return open_dir(".", DirOpen{.follow = true}); }

Result<Dir> Dir::duplicate() const {
  int fd = ::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return sys_error(errno);
  return Dir(Fd(fd));
}

Result<std::optional<FileStat>> Dir::stat(const std::string& name) const {
  struct stat st;
  if (::fstatat(fd_.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return std::optional<FileStat>();
    return sys_error(errno);
  }
  return std::optional<FileStat>(file_stat_of(st));
}

Result<FileStat> Dir::stat_self() const {
  struct stat st;
  if (::fstat(fd_.get(), &st) != 0) return sys_error(errno);
  return file_stat_of(st);
}

Result<std::optional<FileStat>> Dir::stat_target(const std::string& name) const {
  struct stat st;
  if (::fstatat(fd_.get(), name.c_str(), &st, 0) != 0) {
    if (errno == ENOENT) return std::optional<FileStat>();
    return sys_error(errno);
  }
  return std::optional<FileStat>(file_stat_of(st));
}

Result<std::vector<std::string>> Dir::names() const {
  int copy = ::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // closedir closes what it is given
  if (copy < 0) return sys_error(errno);
  std::unique_ptr<DIR, DirCloser> dir(::fdopendir(copy));
  if (!dir) {
    int error = errno;
    ::close(copy);
    return sys_error(error);
  }
  std::vector<std::string> names;
  while (true) {
    errno = 0;
    const struct dirent* entry = ::readdir(dir.get());
    if (entry == nullptr) break;
    std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  if (errno != 0) return sys_error(errno);
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> Dir::read_link(const std::string& name) const {
  std::string target(4096, '\0');
  while (true) {
    ssize_t n = ::readlinkat(fd_.get(), name.c_str(), target.data(), target.size());
    if (n < 0) return sys_error(errno);
    if (static_cast<size_t>(n) < target.size()) {
      target.resize(static_cast<size_t>(n));
      return target;
    }
    target.resize(target.size() * 2);
  }
}

Result<Fd> Dir::open_read(const std::string& name, bool follow) const {
  int fd = ::openat(fd_.get(), name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (follow ? 0 : O_NOFOLLOW));
  if (fd < 0) return sys_error(errno);
  return regular_file_only(fd);
}

Result<Fd> Dir::create_file(const std::string& name, uint32_t mode) const {
  int fd = ::openat(fd_.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return sys_error(errno);
  return Fd(fd);
}

Result<void> Dir::make_dir(const std::string& name, uint32_t mode) const {
  if (::mkdirat(fd_.get(), name.c_str(), mode) != 0) return sys_error(errno);
  return {};
}

Result<void> Dir::remove(const std::string& name, bool directory) const {
  if (::unlinkat(fd_.get(), name.c_str(), directory ? AT_REMOVEDIR : 0) != 0) return sys_error(errno);
  return {};
}

Result<void> Dir::remove_tree(const std::string& name, int max_depth) const {
  auto st = stat(name);
  if (!st) return st.error();
  if (!*st) return {};
  if ((*st)->is_dir()) {
    if (max_depth <= 0) return sys_error(ELOOP);
    auto below = open_dir(name);
    if (!below) return below.error().sys == ENOENT ? Result<void>() : Result<void>(below.error());
    auto names = below->names();
    if (!names) return names.error();
    for (const auto& entry : *names) {
      if (auto removed = below->remove_tree(entry, max_depth - 1); !removed) return removed;
    }
  }
  auto removed = remove(name, (*st)->is_dir());
  if (!removed && removed.error().sys != ENOENT) return removed;
  return {};
}

Result<void> Dir::rename(const std::string& from, const std::string& to) const {
  if (::renameat(fd_.get(), from.c_str(), fd_.get(), to.c_str()) != 0) return sys_error(errno);
  return {};
}

Result<void> Dir::symlink(const std::string& target, const std::string& name) const {
  if (::symlinkat(target.c_str(), fd_.get(), name.c_str()) != 0) return sys_error(errno);
  return {};
}

Result<void> Dir::link(const std::string& name, const Dir& to_dir, const std::string& to) const {
  if (::linkat(fd_.get(), name.c_str(), to_dir.fd(), to.c_str(), 0) != 0) return sys_error(errno);
  return {};
}

namespace {

std::string proc_fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// chmod of what the O_PATH descriptor `fd` (a regular file or a directory, never a link) refers to.
Result<void> chmod_opened(int fd, int parent, const std::string& name, bool directory, uint32_t mode) {
  if (::chmod(proc_fd_path(fd).c_str(), mode) == 0) return {};
  if (errno != ENOENT && errno != ENOTDIR) return sys_error(errno);
  // No /proc: a descriptor of the entry itself, opened without following a link (reading needs read permission).
  int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | (directory ? O_DIRECTORY : 0);
  int own = ::openat(parent, name.c_str(), flags);
  if (own < 0) return sys_error(errno == ELOOP ? ELOOP : errno);
  Fd owned(own);
  struct stat a, b;
  if (::fstat(own, &a) != 0 || ::fstat(fd, &b) != 0) return sys_error(errno);
  if (a.st_ino != b.st_ino || a.st_dev != b.st_dev) return sys_error(ESTALE);  // swapped meanwhile
  if (::fchmod(own, mode) != 0) return sys_error(errno);
  return {};
}

Result<void> set_mtime_opened(int fd, int parent, const std::string& name, int64_t mtime_ns) {
  MtimeOnly when(mtime_ns);
  if (::utimensat(AT_FDCWD, proc_fd_path(fd).c_str(), when.times, 0) == 0) return {};
  if (errno != ENOENT && errno != ENOTDIR) return sys_error(errno);
  // No /proc: by name, never following a link (a swapped-in link gets the time, not what it points to).
  if (::utimensat(parent, name.c_str(), when.times, AT_SYMLINK_NOFOLLOW) != 0) return sys_error(errno);
  return {};
}

}  // namespace

Result<FileStat> Dir::set_meta(const std::string& name, std::optional<uint32_t> mode,
                               std::optional<int64_t> mtime_ns) const {
  int fd = ::openat(fd_.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return sys_error(errno);
  Fd entry(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return sys_error(errno);
  if (S_ISLNK(st.st_mode)) return sys_error(ELOOP);
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return sys_error(EINVAL);
  if (mode && (st.st_mode & 07777) != *mode) {
    if (auto set = chmod_opened(fd, fd_.get(), name, S_ISDIR(st.st_mode), *mode); !set) return set.error();
  }
  if (mtime_ns) {
    if (auto set = set_mtime_opened(fd, fd_.get(), name, *mtime_ns); !set) return set.error();
  }
  if (::fstat(fd, &st) != 0) return sys_error(errno);
  return file_stat_of(st);
}

Result<void> Dir::chmod_self(uint32_t mode) const {
  if (::fchmod(fd_.get(), mode) != 0) return sys_error(errno);
  return {};
}

}  // namespace muster::posix
