#include "doctor/node/tree_hash.h"

#include <vector>

#include <fmt/format.h>

#include "posix/dir.h"
#include "posix/file.h"
#include "util/xxh3.h"

namespace muster::doctor {
namespace {

struct FileEntry {
  std::string relative;
  std::string path;
  int64_t size = 0;
};

std::string hex(uint64_t hash) { return fmt::format("{:016x}", hash); }

// Appends the regular files below `dir` (named `path`; in walk order) to `files`; false once a limit is passed.
// What cannot be listed or looked at is left out, as if it were not there.
bool list_files(const posix::Dir& dir, const std::string& path, const std::string& prefix,
                const TreeHashLimits& limits, std::vector<FileEntry>& files, int64_t& bytes) {
  auto names = dir.names();  // sorted
  if (!names) return true;
  for (const auto& name : *names) {
    auto st = dir.stat(name);  // never through a link
    if (!st || !*st) continue;
    if ((*st)->is_dir()) {
      if (name == ".git" || name == "__pycache__") continue;
      auto below = dir.open_dir(name);
      if (!below) continue;
      if (!list_files(*below, path + "/" + name, prefix + name + "/", limits, files, bytes)) return false;
    } else if ((*st)->is_file()) {
      if (name.rfind(kDoctorMarkerPrefix, 0) == 0) continue;
      auto size = static_cast<int64_t>((*st)->size);
      files.push_back({prefix + name, path + "/" + name, size});
      bytes += size;
      if (static_cast<int64_t>(files.size()) > limits.max_files || bytes > limits.max_bytes) return false;
    }
  }
  return true;
}

std::string hash_file(const std::string& path) {
  auto fd = posix::open_read(path, /*no_follow=*/false);  // a listed file, or the root the user named
  if (!fd) return "unreadable";
  Xxh3Hasher hasher;
  std::string buffer(1 << 16, '\0');
  while (true) {
    auto got = posix::read_full(fd->get(), buffer);
    if (!got) return "unreadable";
    if (*got == 0) break;
    hasher.update(std::string_view(buffer.data(), *got));
  }
  return hex(hasher.digest());
}

// The files of `root`: the tree below a directory, or a single file (its relative path is its name); false when
// a limit is passed.
bool list_root(const std::string& root, const TreeHashLimits& limits, std::vector<FileEntry>& files,
               int64_t& bytes) {
  if (auto dir = posix::Dir::open(root, {.follow = true})) {
    return list_files(*dir, root, "", limits, files, bytes);
  }
  auto fd = posix::open_read(root, /*no_follow=*/false);
  if (!fd) return true;  // missing: an empty tree
  auto st = posix::stat_fd(fd->get());
  if (!st || !st->is_file()) return true;
  size_t slash = root.find_last_of('/');
  std::string name = slash == std::string::npos ? root : root.substr(slash + 1);
  files.push_back({name, root, static_cast<int64_t>(st->size)});
  bytes = files.back().size;
  return bytes <= limits.max_bytes;
}

}  // namespace

TreeHash hash_tree(const std::string& root, const TreeHashLimits& limits) {
  TreeHash result;
  std::vector<FileEntry> files;
  bool complete = list_root(root, limits, files, result.bytes);
  result.files = static_cast<int64_t>(files.size());
  if (!complete) {
    result.too_big = true;
    return result;
  }
  bool named = result.files <= limits.max_named_files;
  Xxh3Hasher tree;
  for (const auto& file : files) {
    std::string hash = hash_file(file.path);
    std::string record = file.relative;
    record += '\0';
    record += std::to_string(file.size);
    record += '\0';
    record += hash;
    record += '\n';
    tree.update(record);
    if (named) result.file_hashes.emplace(file.relative, std::move(hash));
  }
  result.hash = hex(tree.digest());
  return result;
}

}  // namespace muster::doctor
