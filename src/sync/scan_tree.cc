// scan_tree and hash_file: the walk of a real directory tree (manifest.h). Every name is opened relative to
// its parent's descriptor with O_NOFOLLOW, so a symlink inside the tree is recorded, never followed.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>


#include "posix/fd.h"
#include "sync/exclude.h"
#include "sync/content_hash.h"
#include "sync/hash_cache.h"
#include "sync/manifest.h"

namespace muster::sync {
namespace {

constexpr size_t kHashBuffer = 1u << 20;

Error io_error(std::string_view what, const std::string& path, int error) {
  return make_error(ErrorKind::io, "cannot {} {}: {}", what, path, std::strerror(error));
}

struct Hashed {
  uint64_t hash = 0;
  uint64_t bytes = 0;
};

// Reads `fd` to its end; `display` names the file in errors.
Result<Hashed> hash_fd(int fd, char* buffer, const std::string& display) {
  ContentHasher xxh;
  Hashed out;
  while (true) {
    ssize_t n = ::read(fd, buffer, kHashBuffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error("read", display, errno);
    if (n == 0) break;
    xxh.update(std::string_view(buffer, static_cast<size_t>(n)));
    out.bytes += static_cast<uint64_t>(n);
  }
  out.hash = xxh.digest();
  return out;
}

// "/data/" -> "/data" for messages ("/" stays).
std::string trim_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

// The names in the directory `fd` (without "." and ".."), sorted.
Result<std::vector<std::string>> list_names(int fd, const std::string& display) {
  int copy = ::dup(fd);  // closedir closes the descriptor it was given
  if (copy < 0) return io_error("read directory", display, errno);
  std::unique_ptr<DIR, DirCloser> dir(::fdopendir(copy));
  if (!dir) {
    int error = errno;
    ::close(copy);
    return io_error("read directory", display, error);
  }
  std::vector<std::string> names;
  while (true) {
    errno = 0;
    const struct dirent* entry = ::readdir(dir.get());
    if (entry == nullptr) break;
    std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  if (errno != 0) return io_error("read directory", display, errno);
  std::sort(names.begin(), names.end());
  return names;
}

class Walker {
 public:
  Walker(std::string root, HashCache* cache)
      : root_(trim_slashes(std::move(root))), cache_(cache), buffer_(std::make_unique<char[]>(kHashBuffer)) {}

  Result<void> walk(int dir_fd, const std::string& dir, const ExcludeRules& inherited);
  Manifest take() {
    std::sort(manifest_.entries.begin(), manifest_.entries.end(),
              [](const Entry& a, const Entry& b) { return a.path < b.path; });
    std::sort(manifest_.stale_temps.begin(), manifest_.stale_temps.end());
    return std::move(manifest_);
  }

 private:
  std::string display(const std::string& relative) const {
    return relative.empty() ? root_ : root_ + "/" + relative;
  }
  Result<void> add_ignore_file(int dir_fd, const std::string& dir, ExcludeRules& rules);
  Result<void> visit(int dir_fd, const std::string& name, const std::string& path, const ExcludeRules& rules);
  Result<void> add_file(int dir_fd, const std::string& name, Entry entry, const struct stat& st);
  Result<void> add_symlink(int dir_fd, const std::string& name, Entry entry);

  std::string root_;
  HashCache* cache_;
  std::unique_ptr<char[]> buffer_;
  Manifest manifest_;
};

Result<void> Walker::walk(int dir_fd, const std::string& dir, const ExcludeRules& inherited) {
  auto names = list_names(dir_fd, display(dir));
  if (!names) return names.error();
  // Rules of this directory's ignore file apply below it only: siblings keep seeing `inherited`.
  std::optional<ExcludeRules> own;
  if (std::binary_search(names->begin(), names->end(), std::string(kIgnoreFileName))) {
    own.emplace(inherited);
    if (auto added = add_ignore_file(dir_fd, dir, *own); !added) return added.error();
  }
  const ExcludeRules& rules = own ? *own : inherited;
  for (const auto& name : *names) {
    std::string path = dir.empty() ? name : dir + "/" + name;
    if (auto visited = visit(dir_fd, name, path, rules); !visited) return visited.error();
  }
  return {};
}

Result<void> Walker::add_ignore_file(int dir_fd, const std::string& dir, ExcludeRules& rules) {
  std::string path = dir.empty() ? std::string(kIgnoreFileName) : dir + "/" + std::string(kIgnoreFileName);
  posix::Fd fd(::openat(dir_fd, std::string(kIgnoreFileName).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) {
    if (errno == ELOOP || errno == ENOENT) return {};  // a symlink is not followed; a vanished file has no rules
    return io_error("read", display(path), errno);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  auto text = posix::read_to_end(fd.get());
  if (!text) return make_error(ErrorKind::io, "cannot read {}: {}", display(path), text.error().message);
  return rules.add_file_text(*text, dir, display(path), true);
}

Result<void> Walker::visit(int dir_fd, const std::string& name, const std::string& path, const ExcludeRules& rules) {
  struct stat st;
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};  // removed while we walk: as if it had never been there
    return io_error("inspect", display(path), errno);
  }
  bool is_dir = S_ISDIR(st.st_mode);
  if (!is_dir && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) return {};  // sockets, fifos, devices
  if (!is_dir && is_temp_name(name)) {
    manifest_.stale_temps.push_back(path);
    return {};
  }
  if (rules.excluded(path, is_dir)) return {};
  Entry entry;
  entry.path = path;
  entry.mode = static_cast<uint32_t>(st.st_mode & 07777);
  if (S_ISLNK(st.st_mode)) return add_symlink(dir_fd, name, std::move(entry));
  if (S_ISREG(st.st_mode)) return add_file(dir_fd, name, std::move(entry), st);
  entry.kind = EntryKind::directory;
  entry.mtime_ns = nanoseconds(st.st_mtim);
  manifest_.entries.push_back(std::move(entry));
  posix::Fd child(::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!child.valid()) return io_error("open directory", display(path), errno);
  return walk(child.get(), path, rules);
}

Result<void> Walker::add_file(int dir_fd, const std::string& name, Entry entry, const struct stat& st) {
  entry.kind = EntryKind::file;
  entry.size = static_cast<uint64_t>(st.st_size);
  entry.mtime_ns = nanoseconds(st.st_mtim);
  FileIdentity identity = identity_of(st);
  if (cache_ != nullptr) {
    if (auto known = cache_->lookup(entry.path, identity)) {
      entry.hash = *known;
      manifest_.entries.push_back(std::move(entry));
      return {};
    }
  }
  posix::Fd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) {
    if (errno == ENOENT) return {};
    return io_error("open", display(entry.path), errno);
  }
  auto hashed = hash_fd(fd.get(), buffer_.get(), display(entry.path));
  if (!hashed) return hashed.error();
  manifest_.hashed_bytes += hashed->bytes;
  entry.hash = hashed->hash;
  entry.size = hashed->bytes;  // size and hash describe the same bytes even if the file grew meanwhile
  struct stat after;
  // Remember the hash only if the file did not change while it was read.
  if (cache_ != nullptr && ::fstat(fd.get(), &after) == 0 && identity_of(after) == identity &&
      hashed->bytes == identity.size) {
    cache_->store(entry.path, identity, entry.hash);
  }
  manifest_.entries.push_back(std::move(entry));
  return {};
}

Result<void> Walker::add_symlink(int dir_fd, const std::string& name, Entry entry) {
  entry.kind = EntryKind::symlink;
  std::string target(4096, '\0');
  while (true) {
    ssize_t n = ::readlinkat(dir_fd, name.c_str(), target.data(), target.size());
    if (n < 0) {
      if (errno == ENOENT) return {};
      return io_error("read symbolic link", display(entry.path), errno);
    }
    if (static_cast<size_t>(n) < target.size()) {
      target.resize(static_cast<size_t>(n));
      break;
    }
    target.resize(target.size() * 2);
  }
  entry.size = target.size();
  entry.target = std::move(target);
  manifest_.entries.push_back(std::move(entry));
  return {};
}

}  // namespace

Result<Manifest> scan_tree(const std::string& root, const ExcludeRules& rules, HashCache* cache) {
  posix::Fd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return Manifest{};  // nothing there yet: a first sync
    if (errno == ENOTDIR) return make_error(ErrorKind::io, "{} is not a directory", root);
    return io_error("open directory", root, errno);
  }
  Walker walker(root, cache);
  if (auto walked = walker.walk(fd.get(), "", rules); !walked) return walked.error();
  return walker.take();
}

Result<uint64_t> hash_file(const std::string& path) {
  posix::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return io_error("open", path, errno);
  auto buffer = std::make_unique<char[]>(kHashBuffer);
  auto hashed = hash_fd(fd.get(), buffer.get(), path);
  if (!hashed) return hashed.error();
  return hashed->hash;
}

}  // namespace muster::sync
