// Whole files by path, and the metadata calls on an open file that sync's receiver and caches need. Errors are
// ErrorKind::io with errno in `sys` (see dir.h), except read_text_file (a file the user named: usage).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "posix/dir.h"
#include "posix/fd.h"
#include "util/result.h"

namespace muster::posix {

// A file the user named on the command line (hostfile, env file, exclude file), whole; an ErrorKind::usage
// error naming it otherwise.
Result<std::string> read_text_file(const std::string& path);

// Opens the regular file `path` for reading; with `no_follow`, a symbolic link as its last component is an error
// (ELOOP). Opened non-blocking and checked: anything but a regular file is an error (sys kNotRegularFile, dir.h),
// so a FIFO planted where a file was expected never blocks the caller.
Result<Fd> open_read(const std::string& path, bool no_follow);
// The whole regular file `path` (open_read; a link as its last component followed only with `follow`): for files
// this process did not create (what a worker, or anyone who could write the directory, left there); larger than
// `max_bytes` is an error (EFBIG).
Result<std::string> read_regular_file(const std::string& path, bool follow = false,
                                      size_t max_bytes = size_t{64} << 20);
// A FIFO at `path` (mode, never through a link: an existing entry that is not a FIFO is an error) opened for
// reading without blocking: O_RDWR, so it never reads EOF when its writers come and go (telemetry's step marker).
Result<Fd> make_fifo_reader(const std::string& path, uint32_t mode);
// The last `max_bytes` of a file (all of a smaller one), starting at a line boundary when it is cut.
Result<std::string> read_file_tail(const std::string& path, size_t max_bytes);
// Reads until `buffer` is full or EOF; returns the bytes read (short only at EOF).
Result<size_t> read_full(int fd, std::span<char> buffer);

// pread until `buffer` is full or EOF, from `offset`; returns the bytes read.
Result<size_t> read_full_at(int fd, std::span<char> buffer, uint64_t offset);
// The data of a file of `size` bytes as [begin, end) ranges, holes left out (SEEK_DATA/SEEK_HOLE); the whole
// file as one range where the file system cannot tell.
Result<std::vector<std::pair<uint64_t, uint64_t>>> data_ranges(int fd, uint64_t size);
// Moves the file offset `bytes` forward without writing (a hole, when nothing is written there later).
Result<void> skip_forward(int fd, uint64_t bytes);
// ftruncate(2): sets the file's size (a file that ends in a hole gets its length).
Result<void> truncate_fd(int fd, uint64_t size);
// flock(LOCK_EX | LOCK_NB): true when this descriptor now holds the lock, false when another open file holds it.
// The kernel drops the lock when the last descriptor of that open file is closed, so a live writer holds it and
// a dead one never does.
Result<bool> try_lock_exclusive(int fd);

Result<FileStat> stat_fd(int fd);
// lstat(2); nullopt when the path does not exist.
Result<std::optional<FileStat>> lstat_path(const std::string& path);
bool path_exists(const std::string& path);
// `path` made absolute (relative to the working directory; `path` itself when that cannot be read), normalised
// lexically (no `.`, `..` or doubled '/'; links are not resolved) and without a trailing '/' ("/" stays): one
// spelling per directory, for comparing and keying paths.
std::string absolute_path(const std::string& path);
// unlink(2), ignoring a missing file; false on another error.
bool remove_file(const std::string& path);

// Permission bits and modification time of an open file.
Result<void> set_fd_meta(int fd, uint32_t mode, int64_t mtime_ns);

// Replaces `path` with `bytes` atomically: a new temporary next to it (O_EXCL | O_NOFOLLOW, mode `mode`), then
// rename; the temporary is removed on failure. Parent directories must exist.
Result<void> write_file_atomic(const std::string& path, std::string_view bytes, uint32_t mode);

// A directory for this user's files alone: made (with missing parents) if absent, mode 0700; refused (a usage
// error naming it) when another user owns it or it is writable by group or others and not this user's to fix.
Result<void> ensure_private_dir(const std::string& path);

// A file opened for appending (O_APPEND | O_NOFOLLOW: a symbolic link in its place is refused, ELOOP), created
// with `mode` when missing (an existing file keeps its mode); `truncate` empties an existing one.
Result<Fd> open_append(const std::string& path, bool truncate, uint32_t mode);

// Creates `path` with `mode` (0700 for a private run directory), and its missing parents with the default mode;
// an existing directory is left as it is (its owner chose its mode). Returns whether `path` was created.
Result<bool> make_dir_with_parents(const std::string& path, uint32_t mode);

// This user's home directory: $HOME, else the password database; empty when neither says.
std::string home_directory();
// This user's name and home directory from the password database (what ssh uses: `~` in its config is pw_dir,
// not $HOME); empty strings when the database has no entry.
struct Account {
  std::string name;
  std::string home;
};
Account current_account();
// The name of the user with this id in the password database; "" when it has none.
std::string user_name(uint32_t uid);
// The existing paths that a shell wildcard pattern names (glob(3)), sorted; none when nothing matches.
std::vector<std::string> glob_paths(const std::string& pattern);
uint32_t effective_uid();

}  // namespace muster::posix
