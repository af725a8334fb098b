// scan_tree and hash_file: the walk of a real directory tree (manifest.h). Every name is opened relative to
// its parent's descriptor with O_NOFOLLOW, so a symlink inside the tree is recorded, never followed.
#include <algorithm>
#include <cerrno>
#include <memory>
#include <optional>

#include "posix/dir.h"
#include "posix/file.h"
#include "sync/exclude.h"
#include "sync/content_hash.h"
#include "sync/hash_cache.h"
#include "sync/manifest.h"

namespace muster::sync {
namespace {

constexpr size_t kHashBuffer = 1u << 20;

Error io_error(std::string_view what, const std::string& path, const Error& error) {
  return make_error(ErrorKind::io, "cannot {} {}: {}", what, path, error.message);
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
    auto n = posix::read_full(fd, std::span<char>(buffer, kHashBuffer));
    if (!n) return io_error("read", display, n.error());
    if (*n == 0) break;
    xxh.update(std::string_view(buffer, *n));
    out.bytes += *n;
  }
  out.hash = xxh.digest();
  return out;
}

// "/data/" -> "/data" for messages ("/" stays).
std::string trim_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

class Walker {
 public:
  Walker(std::string root, HashCache* cache)
      : root_(trim_slashes(std::move(root))), cache_(cache), buffer_(std::make_unique<char[]>(kHashBuffer)) {}

  Result<void> walk(const posix::Dir& dir, const std::string& path, const ExcludeRules& inherited);
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
  Result<void> add_ignore_file(const posix::Dir& dir, const std::string& path, ExcludeRules& rules);
  Result<void> visit(const posix::Dir& dir, const std::string& name, const std::string& path,
                     const ExcludeRules& rules);
  Result<void> add_file(const posix::Dir& dir, const std::string& name, Entry entry, const posix::FileStat& st);
  Result<void> add_symlink(const posix::Dir& dir, const std::string& name, Entry entry);

  std::string root_;
  HashCache* cache_;
  std::unique_ptr<char[]> buffer_;
  Manifest manifest_;
};

Result<void> Walker::walk(const posix::Dir& dir, const std::string& path, const ExcludeRules& inherited) {
  auto names = dir.names();
  if (!names) return io_error("read directory", display(path), names.error());
  // Rules of this directory's ignore file apply below it only: siblings keep seeing `inherited`.
  std::optional<ExcludeRules> own;
  if (std::binary_search(names->begin(), names->end(), std::string(kIgnoreFileName))) {
    own.emplace(inherited);
    if (auto added = add_ignore_file(dir, path, *own); !added) return added.error();
  }
  const ExcludeRules& rules = own ? *own : inherited;
  for (const auto& name : *names) {
    std::string child = path.empty() ? name : path + "/" + name;
    if (auto visited = visit(dir, name, child, rules); !visited) return visited.error();
  }
  return {};
}

Result<void> Walker::add_ignore_file(const posix::Dir& dir, const std::string& path, ExcludeRules& rules) {
  std::string file = path.empty() ? std::string(kIgnoreFileName) : path + "/" + std::string(kIgnoreFileName);
  auto fd = dir.open_read(std::string(kIgnoreFileName));
  if (!fd) {
    int code = fd.error().sys;
    if (code == ELOOP || code == ENOENT) return {};  // a symlink is not followed; a vanished file has no rules
    return io_error("read", display(file), fd.error());
  }
  auto st = posix::stat_fd(fd->get());
  if (!st || !st->is_file()) return {};
  auto text = posix::read_to_end(fd->get());
  if (!text) return make_error(ErrorKind::io, "cannot read {}: {}", display(file), text.error().message);
  return rules.add_file_text(*text, path, display(file), true);
}

Result<void> Walker::visit(const posix::Dir& dir, const std::string& name, const std::string& path,
                           const ExcludeRules& rules) {
  auto found = dir.stat(name);
  if (!found) return io_error("inspect", display(path), found.error());
  if (!*found) return {};  // removed while we walk: as if it had never been there
  const posix::FileStat& st = **found;
  if (!st.is_dir() && !st.is_file() && !st.is_link()) return {};  // sockets, fifos, devices
  if (!st.is_dir() && is_temp_name(name)) {
    manifest_.stale_temps.push_back(path);
    return {};
  }
  if (rules.excluded(path, st.is_dir())) return {};
  Entry entry;
  entry.path = path;
  entry.mode = st.mode;
  if (st.is_link()) return add_symlink(dir, name, std::move(entry));
  if (st.is_file()) return add_file(dir, name, std::move(entry), st);
  entry.kind = EntryKind::directory;
  entry.mtime_ns = st.mtime_ns;
  manifest_.entries.push_back(std::move(entry));
  auto child = dir.open_dir(name);
  if (!child) return io_error("open directory", display(path), child.error());
  return walk(*child, path, rules);
}

Result<void> Walker::add_file(const posix::Dir& dir, const std::string& name, Entry entry,
                              const posix::FileStat& st) {
  entry.kind = EntryKind::file;
  entry.size = st.size;
  entry.mtime_ns = st.mtime_ns;
  FileIdentity identity = identity_of(st);
  if (cache_ != nullptr) {
    if (auto known = cache_->lookup(entry.path, identity)) {
      entry.hash = *known;
      manifest_.entries.push_back(std::move(entry));
      return {};
    }
  }
  auto fd = dir.open_read(name);
  if (!fd) {
    if (fd.error().sys == ENOENT) return {};
    return io_error("open", display(entry.path), fd.error());
  }
  auto hashed = hash_fd(fd->get(), buffer_.get(), display(entry.path));
  if (!hashed) return hashed.error();
  manifest_.hashed_bytes += hashed->bytes;
  entry.hash = hashed->hash;
  entry.size = hashed->bytes;  // size and hash describe the same bytes even if the file grew meanwhile
  // Remember the hash only if the file did not change while it was read.
  auto after = posix::stat_fd(fd->get());
  if (cache_ != nullptr && after && identity_of(*after) == identity && hashed->bytes == identity.size) {
    cache_->store(entry.path, identity, entry.hash);
  }
  manifest_.entries.push_back(std::move(entry));
  return {};
}

Result<void> Walker::add_symlink(const posix::Dir& dir, const std::string& name, Entry entry) {
  entry.kind = EntryKind::symlink;
  auto target = dir.read_link(name);
  if (!target) {
    if (target.error().sys == ENOENT) return {};
    return io_error("read symbolic link", display(entry.path), target.error());
  }
  entry.size = target->size();
  entry.target = std::move(*target);
  manifest_.entries.push_back(std::move(entry));
  return {};
}

}  // namespace

Result<Manifest> scan_tree(const std::string& root, const ExcludeRules& rules, HashCache* cache) {
  auto dir = posix::Dir::open(root);
  if (!dir) {
    if (dir.error().sys == ENOENT) return Manifest{};  // nothing there yet: a first sync
    if (dir.error().sys == ENOTDIR) return make_error(ErrorKind::io, "{} is not a directory", root);
    return io_error("open directory", root, dir.error());
  }
  Walker walker(root, cache);
  if (auto walked = walker.walk(*dir, "", rules); !walked) return walked.error();
  return walker.take();
}

Result<uint64_t> hash_file(const std::string& path) {
  auto fd = posix::open_read(path, true);
  if (!fd) return io_error("open", path, fd.error());
  auto buffer = std::make_unique<char[]>(kHashBuffer);
  auto hashed = hash_fd(fd->get(), buffer.get(), path);
  if (!hashed) return hashed.error();
  return hashed->hash;
}

}  // namespace muster::sync
