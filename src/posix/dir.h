// Directories and what is in them, always reached through an open directory descriptor and never through a
// symbolic link in the name being opened (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW): what sync needs to stay below a
// destination root whatever a node already holds, and to walk a source tree without following its links.
//
// `Dir` owns one directory descriptor (move-only). Its operations take one path component (`name`, no '/').
// Errors are ErrorKind::io with the system's text as the message and errno in `sys`, so callers name the path
// in their own words and tell ENOENT ("missing") or ELOOP/ENOTDIR ("in the way") from other failures.
#pragma once

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "posix/fd.h"
#include "util/result.h"

namespace muster::posix {

// What sync and doctor need of a file's metadata (lstat/fstat).
struct FileStat {
  enum class Kind { regular, directory, symlink, other };
  Kind kind = Kind::other;
  uint32_t mode = 0;  // permission bits (07777)
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t inode = 0;
  uint64_t device = 0;
  uint32_t uid = 0;
  uint32_t links = 0;  // hard links
  uint64_t blocks = 0;  // 512-byte blocks allocated (less than size / 512: the file has holes)
  bool is_dir() const { return kind == Kind::directory; }
  bool is_file() const { return kind == Kind::regular; }
  bool is_link() const { return kind == Kind::symlink; }
};

// The `sys` of the error of Dir::open_read and posix::open_read (file.h) when the path names something else than a
// regular file (a FIFO, a directory, a device, a socket): EINVAL, with the kind in the message.
inline constexpr int kNotRegularFile = EINVAL;

// How a directory is opened: for reading its entries, or only to reach what is below it (O_PATH, which needs
// only search permission: a 0711 home). `follow`: a symbolic link as the last component is followed (only for
// paths the user named).
struct DirOpen {
  bool search_only = false;
  bool follow = false;
};

class Dir {
 public:
  // `path` as the user named it (absolute or relative to the working directory; links followed).
  static Result<Dir> open(const std::string& path, DirOpen how = {});
  Dir() = default;  // no directory (valid() is false) until one is moved in

  int fd() const { return fd_.get(); }
  bool valid() const { return fd_.valid(); }

  Result<Dir> open_dir(const std::string& name, DirOpen how = {}) const;
  // This directory again, readable (for one reached with search_only).
  Result<Dir> reopen() const;
  Result<Dir> duplicate() const;

  // nullopt when `name` does not exist. (`name` may also be a relative path, whose intermediate links are
  // followed: only for asking whether something is there.)
  Result<std::optional<FileStat>> stat(const std::string& name) const;
  Result<FileStat> stat_self() const;
  // What `name` points to when it is a symbolic link (stat, following links); nullopt when nothing is there.
  // Only for what the user asked to follow (sync --links copy-target).
  Result<std::optional<FileStat>> stat_target(const std::string& name) const;
  // The names in this directory without "." and "..", sorted.
  Result<std::vector<std::string>> names() const;
  Result<std::string> read_link(const std::string& name) const;

  // A regular file, for reading: never through a link as the last component unless `follow` (only for links the
  // user asked to follow). Opened non-blocking and checked: a FIFO, device or socket in its place (which anyone
  // who can write the directory may leave there) is an error (sys kNotRegularFile), never a read that blocks.
  Result<Fd> open_read(const std::string& name, bool follow = false) const;
  // A new file (O_EXCL: fails with EEXIST when the name is taken), write-only.
  Result<Fd> create_file(const std::string& name, uint32_t mode) const;
  // EEXIST is an error the caller may accept (check `sys`).
  Result<void> make_dir(const std::string& name, uint32_t mode) const;
  Result<void> remove(const std::string& name, bool directory) const;
  // Removes `name` and, when it is a directory, everything below it, never through a link (a link is removed
  // itself); at most `max_depth` levels deep (deeper is an error, ELOOP). A missing `name` is fine.
  Result<void> remove_tree(const std::string& name, int max_depth = 32) const;
  Result<void> rename(const std::string& from, const std::string& to) const;
  Result<void> symlink(const std::string& target, const std::string& name) const;
  // A new name `to` in `to_dir` for the file `name` here (a hard link; a symbolic link `name` is linked itself,
  // never followed).
  Result<void> link(const std::string& name, const Dir& to_dir, const std::string& to) const;
  // Permission bits and/or modification time of the entry `name`, never through a symbolic link, also when
  // `name` is swapped for one meanwhile: the entry is opened O_PATH|O_NOFOLLOW, a link is refused (ELOOP), and
  // both changes act on that descriptor (through /proc/self/fd; without /proc, an O_NOFOLLOW descriptor of a
  // regular file or directory and fchmod, and utimensat with AT_SYMLINK_NOFOLLOW). fchmodat(2) is never used:
  // on Linux it cannot refuse a symbolic link. Returns the entry's metadata afterwards, from that descriptor.
  Result<FileStat> set_meta(const std::string& name, std::optional<uint32_t> mode,
                            std::optional<int64_t> mtime_ns) const;
  Result<void> chmod_self(uint32_t mode) const;

 private:
  explicit Dir(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;
};

}  // namespace muster::posix
