// scan_tree and hash_file: the walk of a real directory tree (manifest.h). Every name is opened relative to
// its parent's descriptor with O_NOFOLLOW, so a symlink inside the tree is recorded, never followed.
#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include <fmt/core.h>

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

constexpr size_t kMaxProblemsShown = 200;

using InodeKey = std::pair<uint64_t, uint64_t>;  // device, inode

class Walker {
 public:
  Walker(std::string root, const ScanOptions& options)
      : root_(trim_slashes(std::move(root))), cache_(options.cache), buffer_(std::make_unique<char[]>(kHashBuffer)) {
    if (options.follow != nullptr) follow_.insert(options.follow->begin(), options.follow->end());
    // About as many entries as the cache knows files: one allocation, not a dozen doublings of ~1 MB copied.
    if (cache_ != nullptr) manifest_.entries.reserve(cache_->size() + cache_->size() / 8);
  }

  void walk(const posix::Dir& dir, const std::string& path, const ExcludeRules& inherited);
  void enter_root(const posix::Dir& dir) {
    if (auto st = dir.stat_self()) {
      open_dirs_.insert({st->device, st->inode});
      manifest_.root_mode = st->mode;
    }
  }
  Result<Manifest> take();

 private:
  void problem(std::string text) { problems_.push_back(std::move(text)); }
  void problem(std::string_view what, const std::string& path, const Error& error) {
    problem(fmt::format("cannot {} {}: {}", what, display(path), error.message));
  }
  void add_directory(const posix::Dir& dir, const std::string& name, Entry entry, const posix::FileStat& st,
                     const ExcludeRules& rules, bool followed);
  void visit_followed(const posix::Dir& dir, const std::string& name, Entry entry, const ExcludeRules& rules);

 private:
  std::string display(const std::string& relative) const {
    return relative.empty() ? root_ : root_ + "/" + relative;
  }
  Result<void> add_ignore_file(const posix::Dir& dir, const std::string& path, ExcludeRules& rules);
  void visit(const posix::Dir& dir, const std::string& name, const std::string& path, const ExcludeRules& rules);
  void add_file(const posix::Dir& dir, const std::string& name, Entry entry, const posix::FileStat& st,
                bool followed = false);
  void add_symlink(const posix::Dir& dir, const std::string& name, Entry entry);

  std::string root_;
  HashCache* cache_;
  std::unique_ptr<char[]> buffer_;
  Manifest manifest_;
  std::set<std::string> follow_;
  std::set<InodeKey> open_dirs_;                 // the directories being walked (a followed link must not loop)
  std::map<InodeKey, uint64_t> inode_hash_;      // files with several names: hashed once
  std::map<std::string, InodeKey> multi_named_;  // path -> inode, for files with several names
  std::vector<std::string> problems_;
};

void Walker::walk(const posix::Dir& dir, const std::string& path, const ExcludeRules& inherited) {
  auto names = dir.names();
  if (!names) return problem("read directory", path, names.error());
  // Rules of this directory's ignore file apply below it only: siblings keep seeing `inherited`.
  std::optional<ExcludeRules> own;
  if (std::binary_search(names->begin(), names->end(), std::string(kIgnoreFileName))) {
    own.emplace(inherited);
    if (auto added = add_ignore_file(dir, path, *own); !added) problem(added.error().message);
  }
  const ExcludeRules& rules = own ? *own : inherited;
  for (const auto& name : *names) {
    std::string child = path.empty() ? name : path + "/" + name;
    visit(dir, name, child, rules);
  }
}

Result<Manifest> Walker::take() {
  if (!problems_.empty()) {
    std::string text = fmt::format("{} problem{} in {} (nothing was copied):", problems_.size(),
                                   problems_.size() == 1 ? "" : "s", root_);
    for (size_t i = 0; i < problems_.size() && i < kMaxProblemsShown; ++i) text += "\n  " + problems_[i];
    if (problems_.size() > kMaxProblemsShown) text += fmt::format("\n  ... and {} more", problems_.size() - kMaxProblemsShown);
    return make_error(ErrorKind::io, "{}", text);
  }
  auto by_path = [](const Entry& a, const Entry& b) { return a.path < b.path; };
  // The walk's order is path order except where a name sorts below '/' ("a-b" before "a/x"): often no sort at all.
  if (!std::is_sorted(manifest_.entries.begin(), manifest_.entries.end(), by_path)) {
    std::sort(manifest_.entries.begin(), manifest_.entries.end(), by_path);
  }
  std::sort(manifest_.stale_temps.begin(), manifest_.stale_temps.end());
  // Every name of a file after its first (in path order) becomes a hard link to that first name.
  std::map<InodeKey, const std::string*> first_name;
  for (auto& entry : manifest_.entries) {
    auto key = multi_named_.find(entry.path);
    if (key == multi_named_.end()) continue;
    auto [first, fresh] = first_name.emplace(key->second, &entry.path);
    if (fresh) continue;
    entry.kind = EntryKind::hardlink;
    entry.target = *first->second;
  }
  return std::move(manifest_);
}

Result<void> Walker::add_ignore_file(const posix::Dir& dir, const std::string& path, ExcludeRules& rules) {
  std::string file = path.empty() ? std::string(kIgnoreFileName) : path + "/" + std::string(kIgnoreFileName);
  auto fd = dir.open_read(std::string(kIgnoreFileName));
  if (!fd) {
    int code = fd.error().sys;
    if (code == ELOOP || code == ENOENT || code == posix::kNotRegularFile) return {};  // no link followed, no FIFO read
    return io_error("read", display(file), fd.error());
  }
  auto st = posix::stat_fd(fd->get());
  if (!st || !st->is_file()) return {};
  auto text = posix::read_to_end(fd->get());
  if (!text) return make_error(ErrorKind::io, "cannot read {}: {}", display(file), text.error().message);
  return rules.add_file_text(*text, path, display(file), true);
}

void Walker::visit(const posix::Dir& dir, const std::string& name, const std::string& path,
                   const ExcludeRules& rules) {
  auto found = dir.stat(name);
  if (!found) return problem("inspect", path, found.error());
  if (!*found) return;  // removed while we walk: as if it had never been there
  const posix::FileStat& st = **found;
  if (!st.is_dir() && !st.is_file() && !st.is_link()) return;  // sockets, fifos, devices
  if (!st.is_dir() && is_temp_name(name)) {
    manifest_.stale_temps.push_back(path);
    return;
  }
  if (rules.excluded(path, st.is_dir())) return;
  Entry entry;
  entry.path = path;
  entry.mode = st.mode;
  if (st.is_link()) {
    if (follow_.count(path)) return visit_followed(dir, name, std::move(entry), rules);
    return add_symlink(dir, name, std::move(entry));
  }
  if (st.is_file()) return add_file(dir, name, std::move(entry), st);
  add_directory(dir, name, std::move(entry), st, rules, false);
}

void Walker::add_directory(const posix::Dir& dir, const std::string& name, Entry entry, const posix::FileStat& st,
                           const ExcludeRules& rules, bool followed) {
  InodeKey key{st.device, st.inode};
  if (open_dirs_.count(key)) {
    return problem(fmt::format("{}: the link leads to a directory that holds it (a loop); it cannot be copied",
                               display(entry.path)));
  }
  entry.kind = EntryKind::directory;
  entry.mode = st.mode;
  entry.mtime_ns = st.mtime_ns;
  std::string path = entry.path;
  manifest_.entries.push_back(std::move(entry));
  auto child = dir.open_dir(name, posix::DirOpen{.follow = followed});
  if (!child) return problem("open directory", path, child.error());
  open_dirs_.insert(key);
  walk(*child, path, rules);
  open_dirs_.erase(key);
}

// A link the caller asked to replace by what it points to.
void Walker::visit_followed(const posix::Dir& dir, const std::string& name, Entry entry, const ExcludeRules& rules) {
  auto target = dir.stat_target(name);
  if (!target) return problem("follow the link", entry.path, target.error());
  if (!*target) {
    auto text = dir.read_link(name);
    return problem(fmt::format("{} -> {} points to nothing; there is no target to copy", display(entry.path),
                               text ? *text : "?"));
  }
  const posix::FileStat& st = **target;
  if (st.is_file()) {
    entry.mode = st.mode;
    return add_file(dir, name, std::move(entry), st, true);
  }
  if (st.is_dir()) return add_directory(dir, name, std::move(entry), st, rules, true);
  // A link to a device, socket or fifo: like those themselves, not copied.
}

void Walker::add_file(const posix::Dir& dir, const std::string& name, Entry entry, const posix::FileStat& st,
                      bool followed) {
  entry.kind = EntryKind::file;
  entry.size = st.size;
  entry.mtime_ns = st.mtime_ns;
  FileIdentity identity = identity_of(st);
  InodeKey inode{st.device, st.inode};
  bool multi = st.links > 1 && !followed;
  if (multi) {
    multi_named_.emplace(entry.path, inode);
    if (auto known = inode_hash_.find(inode); known != inode_hash_.end()) {
      entry.hash = known->second;
      manifest_.entries.push_back(std::move(entry));
      return;
    }
  }
  if (cache_ != nullptr) {
    if (auto known = cache_->lookup(entry.path, identity)) {
      entry.hash = *known;
      if (multi) inode_hash_.emplace(inode, entry.hash);
      manifest_.entries.push_back(std::move(entry));
      return;
    }
  }
  auto fd = dir.open_read(name, followed);
  if (!fd) {
    if (fd.error().sys == ENOENT) return;
    return problem("open", entry.path, fd.error());
  }
  auto hashed = hash_fd(fd->get(), buffer_.get(), display(entry.path));
  if (!hashed) return problem(hashed.error().message);
  manifest_.hashed_bytes += hashed->bytes;
  entry.hash = hashed->hash;
  entry.size = hashed->bytes;  // size and hash describe the same bytes even if the file grew meanwhile
  // Remember the hash only if the file did not change while it was read.
  auto after = posix::stat_fd(fd->get());
  bool unchanged = after && identity_of(*after) == identity && hashed->bytes == identity.size;
  if (cache_ != nullptr && unchanged) cache_->store(entry.path, identity, entry.hash);
  if (multi && unchanged) inode_hash_.emplace(inode, entry.hash);
  manifest_.entries.push_back(std::move(entry));
}

void Walker::add_symlink(const posix::Dir& dir, const std::string& name, Entry entry) {
  entry.kind = EntryKind::symlink;
  auto target = dir.read_link(name);
  if (!target) {
    if (target.error().sys == ENOENT) return;
    return problem("read symbolic link", entry.path, target.error());
  }
  entry.size = target->size();
  entry.target = std::move(*target);
  manifest_.entries.push_back(std::move(entry));
}

}  // namespace

Result<Manifest> scan_tree(const std::string& root, const ExcludeRules& rules, HashCache* cache) {
  return scan_tree(root, rules, ScanOptions{cache, nullptr});
}

Result<Manifest> scan_tree(const std::string& root, const ExcludeRules& rules, const ScanOptions& options) {
  auto dir = posix::Dir::open(root);
  if (!dir) {
    if (dir.error().sys == ENOENT) return Manifest{};  // nothing there yet: a first sync
    if (dir.error().sys == ENOTDIR) return make_error(ErrorKind::io, "{} is not a directory", root);
    return io_error("open directory", root, dir.error());
  }
  Walker walker(root, options);
  walker.enter_root(*dir);
  walker.walk(*dir, "", rules);
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
