#include "sync/dest_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sync/manifest.h"

namespace muster::sync {
namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

Error io_error(const std::string& root, std::string_view path, const char* what, int error) {
  return make_error(ErrorKind::io, "cannot {} {}: {}", what, dest_display(root, path), std::strerror(error));
}

// Opens (and, when asked, creates) directory `name` inside `parent`; refuses symlinks and non-directories.
Result<posix::Fd> open_dir_at(int parent, const std::string& name, bool create, const std::string& root,
                              std::string_view shown) {
  int fd = ::openat(parent, name.c_str(), kDirFlags);
  if (fd < 0 && errno == ENOENT && create) {
    if (::mkdirat(parent, name.c_str(), 0755) != 0 && errno != EEXIST) {
      return io_error(root, shown, "create directory", errno);
    }
    fd = ::openat(parent, name.c_str(), kDirFlags);
  }
  if (fd < 0) {
    if (errno == ELOOP || errno == ENOTDIR) {
      return make_error(ErrorKind::io, "{} is not a directory (a file or symbolic link is in the way)",
                        dest_display(root, shown));
    }
    return io_error(root, shown, "open directory", errno);
  }
  return posix::Fd(fd);
}

}  // namespace

std::string dest_display(const std::string& root, std::string_view path) {
  if (path.empty()) return root;
  return root + (root.ends_with('/') ? "" : "/") + std::string(path);
}

Result<DestTree> DestTree::open(const std::string& root, bool create) {
  if (root.empty() || root[0] != '/') return make_error(ErrorKind::usage, "destination '{}' is not absolute", root);
  // The root itself may be (or lie under) a symlink the user chose: resolve it normally, creating it if asked.
  // Its ancestors are opened O_PATH: a non-root user may only have search permission on them (a 0711 home).
  constexpr int kWalkFlags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  posix::Fd fd(::open("/", kWalkFlags));
  std::string walked;
  size_t start = 1;
  while (start <= root.size()) {
    size_t end = root.find('/', start);
    if (end == std::string::npos) end = root.size();
    std::string part = root.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    walked += "/" + part;
    int next = ::openat(fd.get(), part.c_str(), kWalkFlags);
    if (next < 0 && errno == ENOENT && create) {
      if (::mkdirat(fd.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
        return io_error(walked, "", "create directory", errno);
      }
      next = ::openat(fd.get(), part.c_str(), kWalkFlags);
    }
    if (next < 0) return io_error(walked, "", "open directory", errno);
    fd.reset(next);
  }
  posix::Fd opened(::openat(fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!opened.valid()) return io_error(root, "", "open directory", errno);
  return DestTree(root, std::move(opened));
}

Result<ParentDir> DestTree::parent_of(std::string_view path, bool create_missing) const {
  if (!is_safe_relative_path(path)) {
    return make_error(ErrorKind::protocol, "unsafe destination path '{}' refused", path);
  }
  size_t slash = path.rfind('/');
  std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
  posix::Fd dir(::dup(root_fd_.get()));
  if (!dir.valid()) return io_error(root_, "", "duplicate descriptor of", errno);
  if (slash != std::string_view::npos) {
    size_t start = 0;
    while (start < slash) {
      size_t end = path.find('/', start);
      auto next = open_dir_at(dir.get(), std::string(path.substr(start, end - start)), create_missing, root_,
                              path.substr(0, end));
      if (!next) return next.error();
      dir = std::move(*next);
      start = end + 1;
    }
  }
  return ParentDir{std::move(dir), std::move(name)};
}

Result<bool> DestTree::remove(std::string_view path) const {
  auto parent = parent_of(path, false);
  if (!parent) {
    // A missing parent means the path is gone already.
    struct stat st;
    if (::fstatat(root_fd_.get(), std::string(path).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) {
      return true;
    }
    return parent.error();
  }
  struct stat st;
  if (::fstatat(parent->dir.get(), parent->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return true;
    return io_error(root_, path, "inspect", errno);
  }
  int flags = S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0;
  if (::unlinkat(parent->dir.get(), parent->name.c_str(), flags) != 0) {
    if (errno == ENOENT) return true;
    if (errno == ENOTEMPTY || errno == EEXIST) return false;
    return io_error(root_, path, "remove", errno);
  }
  return true;
}

Result<void> DestTree::make_dir(std::string_view path) const {
  auto parent = parent_of(path, true);
  if (!parent) return parent.error();
  if (::mkdirat(parent->dir.get(), parent->name.c_str(), 0755) != 0 && errno != EEXIST) {
    return io_error(root_, path, "create directory", errno);
  }
  struct stat st;
  if (::fstatat(parent->dir.get(), parent->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) {
    return make_error(ErrorKind::io, "{} is not a directory (a file or symbolic link is in the way)",
                      dest_display(root_, path));
  }
  return {};
}

Result<void> DestTree::set_meta(std::string_view path, uint32_t mode, int64_t mtime_ns) const {
  auto parent = parent_of(path, false);
  if (!parent) return parent.error();
  struct stat st;
  if (::fstatat(parent->dir.get(), parent->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return io_error(root_, path, "inspect", errno);
  }
  if (S_ISLNK(st.st_mode)) return make_error(ErrorKind::io, "{} is a symbolic link", dest_display(root_, path));
  if ((st.st_mode & 07777) != mode && ::fchmodat(parent->dir.get(), parent->name.c_str(), mode, 0) != 0) {
    return io_error(root_, path, "set the mode of", errno);
  }
  struct timespec times[2];
  times[0].tv_sec = 0;
  times[0].tv_nsec = UTIME_OMIT;
  times[1].tv_sec = mtime_ns / 1'000'000'000;
  times[1].tv_nsec = mtime_ns % 1'000'000'000;
  if (times[1].tv_nsec < 0) {
    times[1].tv_nsec += 1'000'000'000;
    times[1].tv_sec -= 1;
  }
  if (::utimensat(parent->dir.get(), parent->name.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) {
    return io_error(root_, path, "set the time of", errno);
  }
  return {};
}

std::optional<std::pair<std::string, uint32_t>> DestTree::unlock_parent_of(std::string_view path) const {
  size_t slash = path.rfind('/');
  std::string dir(slash == std::string_view::npos ? std::string_view() : path.substr(0, slash));
  posix::Fd held;
  int fd = root_fd_.get();
  if (!dir.empty()) {
    auto parent = parent_of(dir, false);
    if (!parent) return std::nullopt;
    auto opened = open_dir_at(parent->dir.get(), parent->name, false, root_, dir);
    if (!opened) return std::nullopt;
    held = std::move(*opened);
    fd = held.get();
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || (st.st_mode & S_IWUSR) || st.st_uid != ::geteuid()) return std::nullopt;
  if (::fchmod(fd, (st.st_mode & 07777) | S_IWUSR) != 0) return std::nullopt;
  return std::make_pair(dir, static_cast<uint32_t>(st.st_mode & 07777));
}

Result<void> DestTree::relock(const std::string& dir, uint32_t mode) const {
  if (dir.empty()) {
    if (::fchmod(root_fd_.get(), mode) != 0) return io_error(root_, "", "set the mode of", errno);
    return {};
  }
  auto parent = parent_of(dir, false);
  if (!parent) return parent.error();
  if (::fchmodat(parent->dir.get(), parent->name.c_str(), mode, 0) != 0) return io_error(root_, dir, "set the mode of", errno);
  return {};
}

Result<void> DestTree::make_symlink(std::string_view path, std::string_view target,
                                    std::string_view temp_suffix) const {
  if (!is_safe_symlink(path, target)) {
    return make_error(ErrorKind::protocol, "symbolic link {} -> {} would leave the destination; refused",
                      dest_display(root_, path), target);
  }
  auto parent = parent_of(path, true);
  if (!parent) return parent.error();
  std::string temp = "." + parent->name + std::string(kTempMarker) + std::string(temp_suffix);
  (void)::unlinkat(parent->dir.get(), temp.c_str(), 0);
  if (::symlinkat(std::string(target).c_str(), parent->dir.get(), temp.c_str()) != 0) {
    return io_error(root_, path, "create symbolic link", errno);
  }
  if (::renameat(parent->dir.get(), temp.c_str(), parent->dir.get(), parent->name.c_str()) != 0) {
    int error = errno;
    (void)::unlinkat(parent->dir.get(), temp.c_str(), 0);
    return io_error(root_, path, "replace", error);
  }
  return {};
}

}  // namespace muster::sync
