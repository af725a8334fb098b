#include "sync/hash_cache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#define XXH_INLINE_ALL  // header-only: the binary pushed to nodes must not need libxxhash there
#include <xxhash.h>

#include <fmt/format.h>

#include "posix/file.h"
#include "protocol/wire.h"

namespace muster::sync {
namespace {

// File layout: this line, then (protocol/wire.h fields) u64 count, `count` records
//   str path | u64 size | i64 mtime_ns | i64 ctime_ns | u64 inode | u64 device | u64 hash
// and last a u64 XXH3-64 of every byte before it. Anything that does not check out is an empty cache.
constexpr std::string_view kMagic = "muster-sync-hash-cache 1\n";

std::string non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

std::string default_cache_dir() {
  std::string xdg = non_empty_env("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg.front() == '/') return xdg + "/muster/sync";  // relative values are invalid (XDG spec)
  std::string home = posix::home_directory();
  if (!home.empty()) return home + "/.cache/muster/sync";
  return fmt::format("/tmp/muster-{}/sync", posix::effective_uid());
}

// A template so that it can take HashCache's private entry map.
template <typename Entries>
std::string encode(const Entries& entries);

}  // namespace

std::string HashCache::path_for(const std::string& root, const std::string& cache_dir) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(root, error);
  if (error) absolute = root;
  std::string normal = absolute.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  std::string dir = cache_dir.empty() ? default_cache_dir() : cache_dir;
  return fmt::format("{}/{:016x}", dir, XXH3_64bits(normal.data(), normal.size()));
}

HashCache HashCache::load(const std::string& cache_file) {
  HashCache cache;
  cache.file_ = cache_file;
  auto fd = posix::open_read(cache_file, false);
  if (!fd) return cache;
  auto bytes = posix::read_to_end(fd->get());
  if (!bytes || bytes->size() < kMagic.size() + 16 || std::string_view(*bytes).substr(0, kMagic.size()) != kMagic) {
    return cache;
  }
  std::string_view body(*bytes);
  body.remove_suffix(8);
  protocol::WireReader checksum(std::string_view(*bytes).substr(body.size()));
  if (checksum.u64("checksum") != XXH3_64bits(body.data(), body.size())) return cache;
  body.remove_prefix(kMagic.size());
  protocol::WireReader reader(body);
  uint64_t count = reader.u64("count");
  std::unordered_map<std::string, Item> entries;
  for (uint64_t i = 0; i < count && reader.ok(); ++i) {
    std::string path = reader.str("path");
    Item item;
    item.identity.size = reader.u64("size");
    item.identity.mtime_ns = reader.i64("mtime");
    item.identity.ctime_ns = reader.i64("ctime");
    item.identity.inode = reader.u64("inode");
    item.identity.device = reader.u64("device");
    item.hash = reader.u64("hash");
    entries[std::move(path)] = item;
  }
  if (!reader.ok() || reader.remaining() != 0 || entries.size() != count) return cache;
  cache.entries_ = std::move(entries);
  return cache;
}

std::optional<uint64_t> HashCache::lookup(const std::string& relative_path, const FileIdentity& identity) const {
  auto found = entries_.find(relative_path);
  if (found == entries_.end()) return std::nullopt;
  found->second.used = true;  // still there, even if changed: store() will follow
  if (!(found->second.identity == identity)) return std::nullopt;
  return found->second.hash;
}

void HashCache::store(const std::string& relative_path, const FileIdentity& identity, uint64_t hash) {
  auto [found, inserted] = entries_.try_emplace(relative_path);
  Item& item = found->second;
  if (inserted || !(item.identity == identity) || item.hash != hash) dirty_ = true;
  item.identity = identity;
  item.hash = hash;
  item.used = true;
}

void HashCache::forget_unused() {
  size_t before = entries_.size();
  std::erase_if(entries_, [](const auto& pair) { return !pair.second.used; });
  if (entries_.size() != before) dirty_ = true;
}

Result<void> HashCache::save() const {
  if (!dirty_ || file_.empty()) return {};
  std::filesystem::path file(file_);
  std::error_code error;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  if (error) return make_error(ErrorKind::io, "cannot create {}: {}", file.parent_path().string(), error.message());
  return posix::write_file_atomic(file_, encode(entries_), 0600);
}

namespace {

template <typename Entries>
std::string encode(const Entries& entries) {
  std::vector<const typename Entries::value_type*> sorted;
  sorted.reserve(entries.size());
  for (const auto& pair : entries) sorted.push_back(&pair);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string out(kMagic);
  protocol::WireWriter writer(out);
  writer.u64(sorted.size());
  for (const auto* pair : sorted) {
    const auto& [path, item] = *pair;
    writer.str(path);
    writer.u64(item.identity.size);
    writer.i64(item.identity.mtime_ns);
    writer.i64(item.identity.ctime_ns);
    writer.u64(item.identity.inode);
    writer.u64(item.identity.device);
    writer.u64(item.hash);
  }
  writer.u64(XXH3_64bits(out.data(), out.size()));
  return out;
}

}  // namespace
}  // namespace muster::sync
