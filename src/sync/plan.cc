#include "sync/plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <string_view>

#define XXH_INLINE_ALL  // header-only: the binary pushed to nodes must not need libxxhash there
#include <xxhash.h>

#include "protocol/wire.h"

namespace muster::sync {
namespace {

std::string_view parent_of(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

bool same_content(const Entry& a, const Entry& b) { return a.size == b.size && a.hash == b.hash; }
bool holds_content(const Entry& e) { return e.kind == EntryKind::file || e.kind == EntryKind::hardlink; }
using ContentKey = std::pair<uint64_t, uint64_t>;  // size, hash
bool same_meta(const Entry& a, const Entry& b) { return a.mode == b.mode && a.mtime_ns == b.mtime_ns; }

class Planner {
 public:
  Planner(const Manifest& destination, bool delete_extraneous) : delete_extraneous_(delete_extraneous) {
    for (const auto& entry : destination.entries) dest_.emplace(entry.path, &entry);
  }

  void add_source(const Entry& entry);
  void add_extraneous(const std::set<std::string_view>& source_paths);
  SyncPlan finish(const Manifest& source);

 private:
  void create(const Entry& entry);
  void remove_with_contents(const Entry& old);
  void changed_inside(std::string_view path) { changed_dirs_.insert(parent_of(path)); }

  std::map<std::string_view, const Entry*> dest_;  // sorted: a directory's contents follow it
  bool delete_extraneous_;
  std::set<std::string_view> removed_;
  std::set<std::string_view> changed_dirs_;  // directories whose listing changes, so their mtime will
  std::set<std::string_view> meta_dirs_;     // source directories whose mode/mtime differ or that are new
  std::set<std::string_view> renewed_;       // source files that get a new inode (sent or copied)
  SyncPlan plan_;

  void content_once();
};

void Planner::create(const Entry& entry) {
  switch (entry.kind) {
    case EntryKind::directory:
      plan_.make_dirs.push_back(entry);
      meta_dirs_.insert(entry.path);
      break;
    case EntryKind::file:
      plan_.send.push_back(entry);
      renewed_.insert(entry.path);
      break;
    case EntryKind::hardlink: plan_.hardlinks.push_back(entry); break;
    case EntryKind::symlink: plan_.links.push_back(entry); break;
    case EntryKind::copy: break;  // never in a manifest
  }
  changed_inside(entry.path);
}

// Deletes `old` and, when it is a directory, everything the destination holds below it.
void Planner::remove_with_contents(const Entry& old) {
  removed_.insert(old.path);
  changed_inside(old.path);
  if (old.kind != EntryKind::directory) return;
  std::string prefix = old.path + "/";
  for (auto it = dest_.lower_bound(prefix); it != dest_.end() && it->first.starts_with(prefix); ++it) {
    removed_.insert(it->first);
  }
}

void Planner::add_source(const Entry& entry) {
  auto found = dest_.find(entry.path);
  if (found == dest_.end() || removed_.count(entry.path) != 0) {
    create(entry);
    return;
  }
  const Entry& old = *found->second;
  if (old.kind != entry.kind) {
    remove_with_contents(old);
    create(entry);
    return;
  }
  switch (entry.kind) {
    case EntryKind::file:
      if (!same_content(entry, old)) {
        plan_.send.push_back(entry);
        renewed_.insert(entry.path);
        changed_inside(entry.path);
      } else if (!same_meta(entry, old)) {
        plan_.touch.push_back(entry);
      }
      break;
    case EntryKind::hardlink:
      // Linked already, to a file that keeps its inode: nothing (its metadata is the file's). The source's order
      // puts a file before its other names, so renewed_ knows about the file by now.
      if (entry.target != old.target || renewed_.count(entry.target) != 0) {
        plan_.hardlinks.push_back(entry);
        changed_inside(entry.path);
      }
      break;
    case EntryKind::copy: break;
    case EntryKind::symlink:
      if (entry.target != old.target) {
        plan_.links.push_back(entry);
        changed_inside(entry.path);
      }
      break;
    case EntryKind::directory:
      if (!same_meta(entry, old)) meta_dirs_.insert(entry.path);
      break;
  }
}

void Planner::add_extraneous(const std::set<std::string_view>& source_paths) {
  if (!delete_extraneous_) return;
  for (const auto& [path, entry] : dest_) {
    if (source_paths.count(path) == 0 && removed_.count(path) == 0) {
      removed_.insert(path);
      changed_inside(path);
    }
  }
}

// Files to send whose content the node holds already at a path this sync leaves alone, or that an earlier file
// of this sync brings, become copies made on the node.
void Planner::content_once() {
  std::map<ContentKey, std::string> on_node;
  for (const auto& [path, entry] : dest_) {
    if (!holds_content(*entry) || entry->size == 0 || removed_.count(path) || renewed_.count(path)) continue;
    on_node.emplace(ContentKey{entry->size, entry->hash}, std::string(path));
  }
  std::set<std::string_view> replaced;  // destination paths whose entry this sync replaces
  for (const auto& e : plan_.hardlinks) replaced.insert(e.path);
  for (const auto& e : plan_.links) replaced.insert(e.path);
  std::vector<Entry> send;
  for (auto& entry : plan_.send) {
    ContentKey key{entry.size, entry.hash};
    auto found = entry.size == 0 ? on_node.end() : on_node.find(key);
    if (found != on_node.end() && replaced.count(found->second) == 0) {
      Entry copy = entry;
      copy.kind = EntryKind::copy;
      copy.target = found->second;
      plan_.copies.push_back(std::move(copy));
      continue;
    }
    if (entry.size > 0) on_node.insert_or_assign(key, entry.path);  // arrives before the commit
    send.push_back(std::move(entry));
  }
  plan_.send = std::move(send);
}

SyncPlan Planner::finish(const Manifest& source) {
  content_once();
  // Descending byte order puts everything below a directory before the directory itself.
  plan_.remove.assign(removed_.rbegin(), removed_.rend());
  for (const auto& entry : source.entries) {
    if (entry.kind != EntryKind::directory) continue;
    if (meta_dirs_.count(entry.path) != 0 || changed_dirs_.count(entry.path) != 0) plan_.dir_meta.push_back(entry);
  }
  std::sort(plan_.dir_meta.begin(), plan_.dir_meta.end(),
            [](const Entry& a, const Entry& b) { return a.path > b.path; });
  for (const auto& entry : plan_.send) plan_.send_bytes += entry.size;
  return std::move(plan_);
}

}  // namespace

std::string plan_digest(const std::vector<Entry>& entries) {
  // The fields in path order, hashed as they are written, 64 KiB at a time: a scan's manifest is in path order
  // already (no sort then), and 10,000 entries never become one ~700 KB buffer (the agents of a no-op re-sync
  // spent a tenth of their time sorting, appending and clearing fresh pages here).
  auto by_path = [](const Entry* a, const Entry* b) { return a->path < b->path; };
  std::vector<const Entry*> sorted;
  sorted.reserve(entries.size());
  for (const auto& entry : entries) sorted.push_back(&entry);
  if (!std::is_sorted(sorted.begin(), sorted.end(), by_path)) std::sort(sorted.begin(), sorted.end(), by_path);
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  constexpr size_t kChunk = 64 * 1024;
  std::string bytes;
  bytes.reserve(kChunk + 1024);
  protocol::WireWriter w(bytes);
  w.u64(sorted.size());
  for (const Entry* e : sorted) {
    w.u8(static_cast<uint8_t>(e->kind));
    w.str(e->path);
    switch (e->kind) {
      case EntryKind::file:
        w.u32(e->mode);
        w.u64(e->size);
        w.i64(e->mtime_ns);
        w.u64(e->hash);
        break;
      case EntryKind::hardlink:
      case EntryKind::symlink:
      case EntryKind::copy: w.str(e->target); break;
      case EntryKind::directory:
        w.u32(e->mode);
        w.i64(e->mtime_ns);
        break;
    }
    if (bytes.size() >= kChunk) {
      XXH3_128bits_update(&state, bytes.data(), bytes.size());
      bytes.clear();
    }
  }
  XXH3_128bits_update(&state, bytes.data(), bytes.size());
  XXH128_hash_t hash = XXH3_128bits_digest(&state);
  std::string out;
  protocol::WireWriter(out).u64(hash.high64);
  protocol::WireWriter(out).u64(hash.low64);
  return out;
}

SyncPlan plan_sync(const Manifest& source, const Manifest& destination, bool delete_extraneous) {
  std::vector<const Entry*> sorted;
  sorted.reserve(source.entries.size());
  for (const auto& entry : source.entries) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) { return a->path < b->path; });
  Planner planner(destination, delete_extraneous);
  std::set<std::string_view> source_paths;
  for (const Entry* entry : sorted) {
    planner.add_source(*entry);
    source_paths.insert(entry->path);
  }
  planner.add_extraneous(source_paths);
  return planner.finish(source);
}

}  // namespace muster::sync
