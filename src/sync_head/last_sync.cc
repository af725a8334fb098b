#include "sync_head/last_sync.h"

#include <algorithm>
#include <filesystem>

#include <fmt/core.h>

#include "posix/file.h"
#include "sync/hash_cache.h"
#include "util/xxh3.h"

namespace muster::sync_head {

std::string last_sync_path(const SyncRequest& request, std::vector<std::string> nodes) {
  std::string cache = sync::HashCache::path_for(request.source, request.cache_dir);
  if (cache.empty()) return "";
  std::sort(nodes.begin(), nodes.end());
  Xxh3Hasher key;
  key.update(request.destination);
  for (const auto& node : nodes) {
    key.update(std::string_view("\0", 1));
    key.update(node);
  }
  return fmt::format("{}.last-{:016x}", cache, key.digest());
}

namespace {

std::string hex(const std::string& bytes) {
  std::string out;
  for (unsigned char byte : bytes) out += fmt::format("{:02x}", byte);
  return out + "\n";
}

}  // namespace

bool same_as_last_sync(const std::string& path, const std::string& digest) {
  if (path.empty()) return false;
  auto text = posix::read_text_file(path);
  return text && *text == hex(digest);
}

void remember_last_sync(const std::string& path, const std::string& digest) {
  if (path.empty() || same_as_last_sync(path, digest)) return;
  if (!std::filesystem::is_directory(std::filesystem::path(path).parent_path())) return;
  (void)posix::write_file_atomic(path, hex(digest), 0600);
}

}  // namespace muster::sync_head
