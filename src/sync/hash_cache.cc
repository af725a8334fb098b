#include "sync/hash_cache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <vector>

#define XXH_INLINE_ALL  // header-only: the binary pushed to nodes must not need libxxhash there
#include <xxhash.h>

#include <fmt/format.h>

#include "posix/file.h"
#include "posix/private_dir.h"
#include "protocol/wire.h"

namespace muster::sync {
namespace {

// File layout: this line, then (protocol/wire.h fields) u64 count, `count` records
//   str path | u64 size | i64 mtime_ns | i64 ctime_ns | u64 inode | u64 device | u64 hash
// and last a u64 XXH3-64 of every byte before it. Anything that does not check out is an empty cache.
constexpr std::string_view kMagic = "muster-sync-hash-cache 1\n";

constexpr std::string_view kBelowCacheDir = "muster/sync";

// Empty without a home directory: then there is no cache (never a /tmp path another user could create first).
std::string default_cache_dir() {
  std::string cache = posix::user_cache_dir();
  return cache.empty() ? std::string() : cache + "/" + std::string(kBelowCacheDir);
}

// The cache file's directory, made (0700) and checked to be this user's alone (posix/private_dir.h): whoever could
// write there could make sync skip files that changed.
Result<void> make_cache_dir(const std::filesystem::path& file) {
  std::filesystem::path dir = file.parent_path();
  Result<std::string> made = dir.string() == default_cache_dir()
                                 ? posix::make_private_dir(posix::user_cache_dir(), std::string(kBelowCacheDir))
                                 : posix::make_private_dir(dir.parent_path().string(), dir.filename().string());
  if (!made) return made.error();
  return {};
}

// (path, item) pairs sorted by path -> the file's bytes.
template <typename Pairs>
std::string encode(const Pairs& sorted);

}  // namespace

std::string HashCache::path_for(const std::string& root, const std::string& cache_dir) {
  std::string normal = posix::absolute_path(root);
  std::string dir = cache_dir.empty() ? default_cache_dir() : cache_dir;
  if (dir.empty()) return "";
  return fmt::format("{}/{:016x}", dir, XXH3_64bits(normal.data(), normal.size()));
}

HashCache HashCache::load(const std::string& cache_file) {
  HashCache cache;
  cache.file_ = cache_file;
  if (cache_file.empty()) return cache;
  auto fd = posix::open_read(cache_file, /*no_follow=*/true);
  if (!fd) return cache;
  // Only a file of this user's that nobody else can write is believed (the directory is checked when saving).
  auto meta = posix::stat_fd(fd->get());
  if (!meta || !meta->is_file() || meta->uid != posix::effective_uid() || (meta->mode & 022) != 0) return cache;
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
  std::vector<std::pair<std::string, Item>> entries;
  entries.reserve(static_cast<size_t>(std::min<uint64_t>(count, body.size() / 48)));
  for (uint64_t i = 0; i < count && reader.ok(); ++i) {
    std::string path = reader.str("path");
    Item item;
    item.identity.size = reader.u64("size");
    item.identity.mtime_ns = reader.i64("mtime");
    item.identity.ctime_ns = reader.i64("ctime");
    item.identity.inode = reader.u64("inode");
    item.identity.device = reader.u64("device");
    item.hash = reader.u64("hash");
    entries.emplace_back(std::move(path), item);
  }
  if (!reader.ok() || reader.remaining() != 0 || entries.size() != count) return cache;
  // Written sorted and unique; a file that is not is not ours to believe.
  for (size_t i = 1; i < entries.size(); ++i) {
    if (!(entries[i - 1].first < entries[i].first)) return cache;
  }
  cache.loaded_ = std::move(entries);
  return cache;
}

HashCache::Item* HashCache::find(const std::string& path) const {
  auto& loaded = loaded_;
  if (cursor_ < loaded.size() && loaded[cursor_].first == path) return &loaded[cursor_++].second;
  auto at = std::lower_bound(loaded.begin(), loaded.end(), path,
                             [](const auto& pair, const std::string& key) { return pair.first < key; });
  if (at != loaded.end() && at->first == path) {
    cursor_ = static_cast<size_t>(at - loaded.begin()) + 1;
    return &at->second;
  }
  auto added = added_.find(path);
  return added == added_.end() ? nullptr : &added->second;
}

std::optional<uint64_t> HashCache::lookup(const std::string& relative_path, const FileIdentity& identity) const {
  Item* found = find(relative_path);
  if (found == nullptr) return std::nullopt;
  found->used = true;  // still there, even if changed: store() will follow
  if (!(found->identity == identity)) return std::nullopt;
  return found->hash;
}

void HashCache::store(const std::string& relative_path, const FileIdentity& identity, uint64_t hash) {
  Item* item = find(relative_path);
  if (item == nullptr) {
    item = &added_[relative_path];
    dirty_ = true;
  } else if (!(item->identity == identity) || item->hash != hash) {
    dirty_ = true;
  }
  item->identity = identity;
  item->hash = hash;
  item->used = true;
}

std::optional<FileIdentity> HashCache::known_identity(const std::string& relative_path) const {
  const Item* found = find(relative_path);
  if (found == nullptr) return std::nullopt;
  return found->identity;
}

void HashCache::forget_unused() {
  size_t before = size();
  std::erase_if(loaded_, [](const auto& pair) { return !pair.second.used; });
  std::erase_if(added_, [](const auto& pair) { return !pair.second.used; });
  cursor_ = 0;
  if (size() != before) dirty_ = true;
}

Result<void> HashCache::save() const {
  if (!dirty_ || file_.empty()) return {};
  if (auto made = make_cache_dir(file_); !made) return made.error();
  std::vector<std::pair<std::string, Item>> sorted;
  sorted.reserve(size());
  std::merge(loaded_.begin(), loaded_.end(), added_.begin(), added_.end(), std::back_inserter(sorted),
             [](const auto& a, const auto& b) { return a.first < b.first; });
  return posix::write_file_atomic(file_, encode(sorted), 0600);  // a new O_EXCL|O_NOFOLLOW temporary, renamed
}

namespace {

template <typename Pairs>
std::string encode(const Pairs& sorted) {
  std::string out(kMagic);
  protocol::WireWriter writer(out);
  writer.u64(sorted.size());
  for (const auto& [path, item] : sorted) {
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
