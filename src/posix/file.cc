#include "posix/file.h"

#include <fcntl.h>
#include <glob.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "posix/file_stat.h"
#include "util/random.h"

namespace muster::posix {

Result<std::string> read_text_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error(ErrorKind::usage, "cannot read '{}': {}", path, std::strerror(errno));
  Fd owned(fd);
  auto text = read_to_end(fd);
  if (!text) return make_error(ErrorKind::usage, "cannot read '{}': {}", path, text.error().message);
  return text;
}

Result<Fd> open_read(const std::string& path, bool no_follow) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (no_follow ? O_NOFOLLOW : 0));
  if (fd < 0) return sys_error(errno);
  return regular_file_only(fd);
}

Result<std::string> read_regular_file(const std::string& path, bool follow, size_t max_bytes) {
  auto fd = open_read(path, !follow);
  if (!fd) return fd.error();
  std::string out;
  char buffer[65536];
  while (true) {
    auto got = read_full(fd->get(), {buffer, sizeof buffer});
    if (!got) return got.error();
    if (out.size() + *got > max_bytes) return sys_error(EFBIG);
    out.append(buffer, *got);
    if (*got < sizeof buffer) return out;
  }
}

Result<Fd> make_fifo_reader(const std::string& path, uint32_t mode) {
  if (::mkfifo(path.c_str(), mode) != 0 && errno != EEXIST) {
    return make_error(ErrorKind::io, "cannot make the FIFO {}: {}", path, std::strerror(errno));
  }
  int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return make_error(ErrorKind::io, "cannot open the FIFO {}: {}", path, std::strerror(errno));
  Fd owned(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
    return make_error(ErrorKind::io, "{} is there already and is not a FIFO", path);
  }
  return owned;
}

Result<std::string> read_file_tail(const std::string& path, size_t max_bytes) {
  auto fd = open_read(path, false);
  if (!fd) return fd.error();
  struct stat st;
  if (::fstat(fd->get(), &st) != 0) return sys_error(errno);
  auto size = static_cast<uint64_t>(st.st_size);
  uint64_t from = size > max_bytes ? size - max_bytes : 0;
  if (::lseek(fd->get(), static_cast<off_t>(from), SEEK_SET) < 0) return sys_error(errno);
  auto text = read_to_end(fd->get());
  if (!text) return text.error();
  if (from > 0) {
    size_t newline = text->find('\n');
    text->erase(0, newline == std::string::npos ? 0 : newline + 1);
  }
  return text;
}

Result<size_t> read_full(int fd, std::span<char> buffer) {
  size_t got = 0;
  while (got < buffer.size()) {
    ssize_t n = ::read(fd, buffer.data() + got, buffer.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error(errno);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

Result<size_t> read_full_at(int fd, std::span<char> buffer, uint64_t offset) {
  size_t got = 0;
  while (got < buffer.size()) {
    ssize_t n = ::pread(fd, buffer.data() + got, buffer.size() - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return sys_error(errno);
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

Result<std::vector<std::pair<uint64_t, uint64_t>>> data_ranges(int fd, uint64_t size) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  auto end = static_cast<off_t>(size);
  off_t at = 0;
  while (at < end) {
    off_t data = ::lseek(fd, at, SEEK_DATA);
    if (data < 0 && errno == ENXIO) break;  // only a hole is left
    if (data < 0) {
      if (errno == EINVAL || errno == EOPNOTSUPP) return std::vector<std::pair<uint64_t, uint64_t>>{{0, size}};
      return sys_error(errno);
    }
    if (data >= end) break;
    off_t hole = ::lseek(fd, data, SEEK_HOLE);
    if (hole < 0) return sys_error(errno);
    hole = std::min(hole, end);
    ranges.emplace_back(static_cast<uint64_t>(data), static_cast<uint64_t>(hole));
    at = hole;
  }
  if (::lseek(fd, 0, SEEK_SET) < 0) return sys_error(errno);
  return ranges;
}

Result<void> skip_forward(int fd, uint64_t bytes) {
  if (::lseek(fd, static_cast<off_t>(bytes), SEEK_CUR) < 0) return sys_error(errno);
  return {};
}

Result<void> truncate_fd(int fd, uint64_t size) {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) return sys_error(errno);
  return {};
}

Result<bool> try_lock_exclusive(int fd) {
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) return false;
    return sys_error(errno);
  }
  return true;
}

Result<FileStat> stat_fd(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return sys_error(errno);
  return file_stat_of(st);
}

Result<std::optional<FileStat>> lstat_path(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::optional<FileStat>();
    return sys_error(errno);
  }
  return std::optional<FileStat>(file_stat_of(st));
}

bool path_exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

std::string absolute_path(const std::string& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  if (error) absolute = path;
  std::string normal = absolute.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

bool remove_file(const std::string& path) { return ::unlink(path.c_str()) == 0 || errno == ENOENT; }

Result<void> set_fd_meta(int fd, uint32_t mode, int64_t mtime_ns) {
  MtimeOnly when(mtime_ns);
  if (::fchmod(fd, mode) != 0 || ::futimens(fd, when.times) != 0) return sys_error(errno);
  return {};
}

Result<void> write_file_atomic(const std::string& path, std::string_view bytes, uint32_t mode) {
  std::string temp = fmt::format("{}.tmp-{}", path, random_hex(12));
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return make_error(ErrorKind::io, "cannot write {}: {}", temp, std::strerror(errno));
  Fd owned(fd);
  auto written = write_all(fd, bytes);
  owned.reset();
  if (!written) {
    ::unlink(temp.c_str());
    return make_error(ErrorKind::io, "cannot write {}: {}", temp, written.error().message);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return make_error(ErrorKind::io, "cannot replace {}: {}", path, std::strerror(error));
  }
  return {};
}

Result<void> ensure_private_dir(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) return make_error(ErrorKind::io, "cannot create {}: {}", path, error.message());
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return make_error(ErrorKind::io, "cannot inspect {}: {}", path, std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return make_error(ErrorKind::usage, "{} is not a directory", path);
  if (st.st_uid != ::geteuid()) {
    return make_error(ErrorKind::usage, "{} belongs to uid {}, not to you (uid {}): refusing to use it", path,
                      st.st_uid, ::geteuid());
  }
  if ((st.st_mode & 077) != 0 && ::chmod(path.c_str(), 0700) != 0) {
    return make_error(ErrorKind::usage, "{} is open to others (mode {:o}) and cannot be made private: {}", path,
                      st.st_mode & 07777, std::strerror(errno));
  }
  return {};
}

Result<Fd> open_append(const std::string& path, bool truncate, uint32_t mode) {
  int flags = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | (truncate ? O_TRUNC : 0);
  int fd = ::open(path.c_str(), flags, static_cast<mode_t>(mode));
  if (fd < 0) return sys_error(errno);
  return Fd(fd);
}

Result<bool> make_dir_with_parents(const std::string& path, uint32_t mode) {
  std::error_code error;
  std::filesystem::path target(path);
  if (target.has_parent_path() && !target.parent_path().empty()) {
    std::filesystem::create_directories(target.parent_path(), error);
    if (error) return make_error(ErrorKind::io, "cannot create {}: {}", target.parent_path().string(), error.message());
  }
  if (::mkdir(path.c_str(), static_cast<mode_t>(mode)) == 0) return true;
  int failure = errno;
  struct stat st;
  if (failure == EEXIST && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return false;
  return make_error(ErrorKind::io, "cannot create {}: {}", path, std::strerror(failure));
}

Account current_account() {
  struct passwd entry;
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  Account account;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    if (found->pw_name != nullptr) account.name = found->pw_name;
    if (found->pw_dir != nullptr) account.home = found->pw_dir;
  }
  return account;
}

std::string user_name(uint32_t uid) {
  struct passwd entry;
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwuid_r(static_cast<uid_t>(uid), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
      found->pw_name != nullptr) {
    return found->pw_name;
  }
  return "";
}

std::vector<std::string> glob_paths(const std::string& pattern) {
  glob_t found{};
  std::vector<std::string> paths;
  if (::glob(pattern.c_str(), 0, nullptr, &found) == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) paths.emplace_back(found.gl_pathv[i]);
  }
  ::globfree(&found);
  return paths;
}

std::string home_directory() {
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return home;
  struct passwd entry;
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr) {
    return found->pw_dir;
  }
  return "";
}

uint32_t effective_uid() { return static_cast<uint32_t>(::geteuid()); }

}  // namespace muster::posix
