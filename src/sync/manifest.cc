// The pure half of the manifest: path safety, temporary names and the wire form. The walk is scan_tree.cc.
#include "sync/manifest.h"

#include "protocol/wire.h"

namespace muster::sync {
namespace {

// Calls `visit` with each '/'-separated component of `path` (empty ones included).
template <typename Visit>
void for_each_component(std::string_view path, Visit&& visit) {
  while (true) {
    size_t slash = path.find('/');
    visit(path.substr(0, slash));
    if (slash == std::string_view::npos) return;
    path.remove_prefix(slash + 1);
  }
}

bool valid_kind(uint8_t kind) {
  return kind >= static_cast<uint8_t>(EntryKind::directory) && kind <= static_cast<uint8_t>(EntryKind::copy);
}

// Why a decoded entry is unacceptable, or "".
std::string entry_problem(const Entry& entry, const Entry* previous) {
  if (!is_safe_relative_path(entry.path)) return "unsafe path";
  if (previous != nullptr && !(previous->path < entry.path)) {
    return previous->path == entry.path ? "duplicate path" : "path out of order (after '" + previous->path + "')";
  }
  if (entry.mode > 07777) return "mode beyond the permission bits";
  switch (entry.kind) {
    case EntryKind::symlink:
      if (entry.target.empty() || entry.target.find('\0') != std::string::npos) return "empty or invalid link target";
      break;
    case EntryKind::hardlink:
      if (!is_safe_relative_path(entry.target) || !(entry.target < entry.path)) {
        return "hard link to '" + entry.target + "', which is no earlier path of the tree";
      }
      break;
    case EntryKind::copy:
      if (!is_safe_relative_path(entry.target) || entry.target == entry.path) {
        return "copy from '" + entry.target + "', which is no other path of the tree";
      }
      break;
    default:
      if (!entry.target.empty()) return "link target on an entry that is no link";
  }
  return "";
}

}  // namespace

bool is_temp_name(std::string_view file_name) {
  return file_name.size() > 1 && file_name.front() == '.' && file_name.find(kTempMarker, 1) != std::string_view::npos;
}

bool is_safe_relative_path(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos) return false;
  bool safe = true;
  for_each_component(path, [&](std::string_view part) {
    if (part.empty() || part == "." || part == "..") safe = false;
  });
  return safe;
}

std::string encode_entries(const std::vector<Entry>& entries) {
  std::string out;
  protocol::WireWriter writer(out);
  for (const auto& entry : entries) {
    writer.u8(static_cast<uint8_t>(entry.kind));
    writer.str(entry.path);
    writer.u32(entry.mode);
    writer.u64(entry.size);
    writer.i64(entry.mtime_ns);
    writer.u64(entry.hash);
    writer.str(entry.target);
  }
  return out;
}

Result<std::vector<Entry>> decode_entries(std::string_view bytes) {
  protocol::WireReader reader(bytes);
  std::vector<Entry> entries;
  while (reader.ok() && reader.remaining() > 0) {
    Entry entry;
    uint8_t kind = reader.u8("entry kind");
    entry.path = reader.str("entry path");
    entry.mode = reader.u32("entry mode");
    entry.size = reader.u64("entry size");
    entry.mtime_ns = reader.i64("entry mtime");
    entry.hash = reader.u64("entry hash");
    entry.target = reader.str("entry link target");
    if (!reader.ok()) break;
    if (!valid_kind(kind)) {
      return make_error(ErrorKind::protocol, "sync manifest: entry {} '{}': unknown kind {}", entries.size(),
                        entry.path, kind);
    }
    entry.kind = static_cast<EntryKind>(kind);
    std::string problem = entry_problem(entry, entries.empty() ? nullptr : &entries.back());
    if (!problem.empty()) {
      return make_error(ErrorKind::protocol, "sync manifest: entry {} '{}': {}", entries.size(), entry.path,
                        problem);
    }
    entries.push_back(std::move(entry));
  }
  if (!reader.ok()) {
    return make_error(ErrorKind::protocol, "sync manifest: truncated or malformed after {} entries: {}",
                      entries.size(), reader.failure());
  }
  return entries;
}

}  // namespace muster::sync
