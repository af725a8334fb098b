#include "sync/dest_tree.h"

#include <cerrno>

#include "posix/file.h"
#include "sync/manifest.h"

namespace muster::sync {
namespace {

Error io_error(const std::string& root, std::string_view path, const char* what, const Error& error) {
  return make_error(ErrorKind::io, "cannot {} {}: {}", what, dest_display(root, path), error.message);
}

Error in_the_way(const std::string& root, std::string_view path) {
  return make_error(ErrorKind::io, "{} is not a directory (a file or symbolic link is in the way)",
                    dest_display(root, path));
}

// A directory the sync makes is private (0700) until the commit gives it the source's mode: files land in it
// before they have theirs, and an interrupted sync must not leave them readable by others.
constexpr uint32_t kNewDirMode = 0700;

// Opens directory `name` inside `parent` as `how` says, first making it (with `mode`) when it is missing and
// `create`; errors name `shown` below `root`.
Result<posix::Dir> open_or_make(const posix::Dir& parent, const std::string& name, posix::DirOpen how, bool create,
                                const std::string& root, std::string_view shown, uint32_t mode = kNewDirMode) {
  auto dir = parent.open_dir(name, how);
  if (!dir && dir.error().sys == ENOENT && create) {
    if (auto made = parent.make_dir(name, mode); !made && made.error().sys != EEXIST) {
      return io_error(root, shown, "create directory", made.error());
    }
    dir = parent.open_dir(name, how);
  }
  return dir;
}

// Opens (and, when asked, creates) directory `name` inside `parent`; refuses symlinks and non-directories.
Result<posix::Dir> open_dir_at(const posix::Dir& parent, const std::string& name, bool create,
                               const std::string& root, std::string_view shown) {
  auto dir = open_or_make(parent, name, {}, create, root, shown);
  if (dir) return dir;
  if (dir.error().sys == ELOOP || dir.error().sys == ENOTDIR) return in_the_way(root, shown);
  if (dir.error().sys == 0) return dir.error();  // already worded by open_or_make
  return io_error(root, shown, "open directory", dir.error());
}

constexpr size_t kMaxTempStem = 160;  // bytes of the name kept in its temporary's name (within NAME_MAX)

// `.<name>.muster-tmp-<suffix>` next to `name`.
std::string link_temp_name(const std::string& name, std::string_view suffix) {
  return "." + name.substr(0, kMaxTempStem) + std::string(kTempMarker) + std::string(suffix);
}

bool same_file(const posix::FileStat& a, const posix::FileStat& b) {
  return a.inode == b.inode && a.device == b.device;
}

// The lock file that claims a link's temporary `temp` for a live writer (kTempLockSuffix): created and flocked
// before the temporary exists, removed after the temporary's name is gone (renamed, or removed on failure).
class TempClaim {
 public:
  static Result<TempClaim> make(const posix::Dir& dir, const std::string& temp) {
    std::string name = temp + std::string(kTempLockSuffix);
    (void)dir.remove(name, false);  // this writer's own leftover (the writer is part of the name)
    auto fd = dir.create_file(name, 0600);
    if (!fd) return fd.error();
    (void)posix::try_lock_exclusive(fd->get());  // a new file: nobody else holds it
    return TempClaim(dir, std::move(name), std::move(*fd));
  }
  TempClaim(TempClaim&&) = default;
  TempClaim& operator=(TempClaim&&) = delete;
  ~TempClaim() {
    if (fd_.valid()) (void)dir_.remove(name_, false);  // the name first, then the lock (with the descriptor)
  }

 private:
  TempClaim(const posix::Dir& dir, std::string name, posix::Fd fd)
      : dir_(dir), name_(std::move(name)), fd_(std::move(fd)) {}
  const posix::Dir& dir_;
  std::string name_;
  posix::Fd fd_;
};

// Whether a live writer holds the lock file of the temporary `temp` in `dir` (TempClaim).
bool claimed_by_live_writer(const posix::Dir& dir, const std::string& temp) {
  auto fd = dir.open_read(temp + std::string(kTempLockSuffix));
  if (!fd) return false;  // no lock file: no writer claims it
  auto locked = posix::try_lock_exclusive(fd->get());
  return locked && !*locked;
}

}  // namespace

std::string dest_display(const std::string& root, std::string_view path) {
  if (path.empty()) return root;
  return root + (root.ends_with('/') ? "" : "/") + std::string(path);
}

Result<DestTree> DestTree::open(const std::string& root, bool create, uint32_t root_mode) {
  if (root.empty() || root[0] != '/') return make_error(ErrorKind::usage, "destination '{}' is not absolute", root);
  // The root itself may be (or lie under) a symlink the user chose: resolve it normally, creating it if asked.
  // Its ancestors are opened O_PATH: a non-root user may only have search permission on them (a 0711 home).
  constexpr posix::DirOpen kWalk{.search_only = true, .follow = true};
  auto dir = posix::Dir::open("/", kWalk);
  if (!dir) return io_error("/", "", "open directory", dir.error());
  std::string walked;
  bool created = false;
  size_t start = 1;
  while (start <= root.size()) {
    size_t end = root.find('/', start);
    if (end == std::string::npos) end = root.size();
    std::string part = root.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    walked += "/" + part;
    // The root is private until the commit; a missing ancestor is never wider than the source's root.
    bool is_root = root.find_first_not_of('/', start) == std::string::npos;
    uint32_t mode = is_root || root_mode == 0 ? kNewDirMode : (root_mode & 0777) | kNewDirMode;
    auto seen = is_root ? dir->stat(part) : Result<std::optional<posix::FileStat>>(std::nullopt);
    bool existed = seen && seen->has_value();
    auto next = open_or_make(*dir, part, kWalk, create, walked, "", mode);
    if (!next) return next.error().sys == 0 ? next.error() : io_error(walked, "", "open directory", next.error());
    if (is_root) created = !existed;
    dir = std::move(next);
  }
  auto opened = dir->reopen();
  if (!opened) return io_error(root, "", "open directory", opened.error());
  DestTree tree(root, std::move(*opened));
  tree.created_root_ = created;
  return tree;
}

Result<ParentDir> DestTree::parent_of(std::string_view path, bool create_missing) const {
  if (!is_safe_relative_path(path)) {
    return make_error(ErrorKind::protocol, "unsafe destination path '{}' refused", path);
  }
  size_t slash = path.rfind('/');
  std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
  auto dir = root_.duplicate();
  if (!dir) return io_error(path_, "", "duplicate descriptor of", dir.error());
  if (slash != std::string_view::npos) {
    size_t start = 0;
    while (start < slash) {
      size_t end = path.find('/', start);
      auto next = open_dir_at(*dir, std::string(path.substr(start, end - start)), create_missing, path_,
                              path.substr(0, end));
      if (!next) return next.error();
      dir = std::move(next);
      start = end + 1;
    }
  }
  return ParentDir{std::move(*dir), std::move(name)};
}

Result<bool> DestTree::remove(std::string_view path) const {
  auto parent = parent_of(path, false);
  if (!parent) {
    // A missing parent means the path is gone already.
    auto missing = root_.stat(std::string(path));
    if (missing && !*missing) return true;
    return parent.error();
  }
  auto st = parent->dir.stat(parent->name);
  if (!st) return io_error(path_, path, "inspect", st.error());
  if (!*st) return true;
  auto removed = parent->dir.remove(parent->name, (*st)->is_dir());
  if (removed) return true;
  int code = removed.error().sys;
  if (code == ENOENT) return true;
  if (code == ENOTEMPTY || code == EEXIST) return false;
  return io_error(path_, path, "remove", removed.error());
}

Result<void> DestTree::make_dir(std::string_view path) const {
  auto parent = parent_of(path, true);
  if (!parent) return parent.error();
  if (auto made = parent->dir.make_dir(parent->name, kNewDirMode); !made && made.error().sys != EEXIST) {
    return io_error(path_, path, "create directory", made.error());
  }
  auto st = parent->dir.stat(parent->name);
  if (!st || !*st || !(*st)->is_dir()) return in_the_way(path_, path);
  return {};
}

Result<posix::FileStat> DestTree::set_meta(std::string_view path, uint32_t mode, int64_t mtime_ns) const {
  auto parent = parent_of(path, false);
  if (!parent) return parent.error();
  auto set = parent->dir.set_meta(parent->name, mode, mtime_ns);
  if (set) return set;
  if (set.error().sys == ELOOP) return make_error(ErrorKind::io, "{} is a symbolic link", dest_display(path_, path));
  return io_error(path_, path, "set the mode and time of", set.error());
}

std::optional<std::pair<std::string, uint32_t>> DestTree::unlock_parent_of(std::string_view path) const {
  size_t slash = path.rfind('/');
  std::string dir(slash == std::string_view::npos ? std::string_view() : path.substr(0, slash));
  std::optional<posix::Dir> held;
  if (!dir.empty()) {
    auto parent = parent_of(dir, false);
    if (!parent) return std::nullopt;
    auto opened = open_dir_at(parent->dir, parent->name, false, path_, dir);
    if (!opened) return std::nullopt;
    held = std::move(*opened);
  }
  const posix::Dir& target = held ? *held : root_;
  auto st = target.stat_self();
  constexpr uint32_t kOwnerWrite = 0200;
  if (!st || (st->mode & kOwnerWrite) || st->uid != posix::effective_uid()) return std::nullopt;
  if (!target.chmod_self(st->mode | kOwnerWrite)) return std::nullopt;
  return std::make_pair(dir, st->mode);
}

Result<void> DestTree::set_root_mode(uint32_t mode) const {
  if (auto set = root_.chmod_self(mode); !set) return io_error(path_, "", "set the mode of", set.error());
  return {};
}

void DestTree::give_existing_root(uint32_t mode) const {
  auto st = root_.stat_self();
  if (created_root_ || !st || st->uid != posix::effective_uid() || st->mode == mode) return;
  (void)root_.chmod_self(mode);
}

Result<void> DestTree::relock(const std::string& dir, uint32_t mode) const {
  if (dir.empty()) {
    if (auto set = root_.chmod_self(mode); !set) return io_error(path_, "", "set the mode of", set.error());
    return {};
  }
  auto parent = parent_of(dir, false);
  if (!parent) return parent.error();
  if (auto set = parent->dir.set_meta(parent->name, mode, std::nullopt); !set) {
    return io_error(path_, dir, "set the mode of", set.error());
  }
  return {};
}

Result<void> DestTree::make_symlink(std::string_view path, std::string_view target,
                                    std::string_view temp_suffix) const {
  auto parent = parent_of(path, true);
  if (!parent) return parent.error();
  std::string temp = link_temp_name(parent->name, temp_suffix);
  auto claim = TempClaim::make(parent->dir, temp);
  if (!claim) return io_error(path_, path, "create a lock file for", claim.error());
  (void)parent->dir.remove(temp, false);
  if (auto made = parent->dir.symlink(std::string(target), temp); !made) {
    return io_error(path_, path, "create symbolic link", made.error());
  }
  if (auto renamed = parent->dir.rename(temp, parent->name); !renamed) {
    (void)parent->dir.remove(temp, false);
    return io_error(path_, path, "replace", renamed.error());
  }
  return {};
}

Result<void> DestTree::make_hardlink(std::string_view path, std::string_view target,
                                     std::string_view temp_suffix) const {
  auto from = parent_of(target, false);
  if (!from) return from.error();
  auto st = from->dir.stat(from->name);
  if (!st) return io_error(path_, target, "inspect", st.error());
  if (!*st || !(*st)->is_file()) {
    return make_error(ErrorKind::io, "cannot link {} to {}: that is no regular file", dest_display(path_, path),
                      dest_display(path_, target));
  }
  auto parent = parent_of(path, true);
  if (!parent) return parent.error();
  // Already that file: rename(2) of one name of a file onto another does nothing, and would leave the temporary.
  if (auto there = parent->dir.stat(parent->name); there && *there && same_file(**there, **st)) return {};
  std::string temp = link_temp_name(parent->name, temp_suffix);
  auto claim = TempClaim::make(parent->dir, temp);
  if (!claim) return io_error(path_, path, "create a lock file for", claim.error());
  (void)parent->dir.remove(temp, false);
  if (auto made = from->dir.link(from->name, parent->dir, temp); !made) {
    return io_error(path_, path, "create hard link", made.error());
  }
  if (auto renamed = parent->dir.rename(temp, parent->name); !renamed) {
    (void)parent->dir.remove(temp, false);
    return io_error(path_, path, "replace", renamed.error());
  }
  return {};
}

Result<bool> DestTree::remove_stale_temp(std::string_view path, int64_t now_ns, int64_t grace_ns) const {
  auto parent = parent_of(path, false);
  if (!parent) return false;
  auto st = parent->dir.stat(parent->name);
  if (!st) return io_error(path_, path, "inspect", st.error());
  if (!*st || (*st)->is_dir() || now_ns - (*st)->mtime_ns < grace_ns) return false;
  if (claimed_by_live_writer(parent->dir, parent->name)) return false;
  posix::Fd held;  // the lock, held until the name is gone
  if ((*st)->is_file()) {
    auto fd = parent->dir.open_read(parent->name);
    if (!fd) return false;  // gone, or not ours to read: leave it
    auto locked = posix::try_lock_exclusive(fd->get());
    if (!locked || !*locked) return false;  // a live writer holds it
    held = std::move(*fd);
  }
  auto removed = parent->dir.remove(parent->name, false);
  return removed.has_value();
}

}  // namespace muster::sync
