#include "sync/receiver.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/core.h>

#include "posix/environment.h"
#include "posix/file.h"
#include "sync/dest_tree.h"
#include "sync/exclude.h"
#include "sync/content_hash.h"
#include "sync/hash_cache.h"
#include "sync/manifest.h"
#include "sync/zstd_codec.h"

namespace muster::sync {
namespace {

using namespace muster::protocol;

constexpr size_t kManifestPart = 4u << 20;      // bytes of encoded entries per SyncManifest frame
constexpr uint32_t kMaxChunk = kMaxFrame - 64;  // a SyncData never expands beyond one frame's worth

// A file being received: its temporary, what it must turn out to be, and how far it got.
struct Incoming {
  SyncFile header;
  ParentDir parent;
  std::string temp;
  posix::Fd fd;
  ContentHasher hash;
  uint64_t written = 0;
};

}  // namespace

struct Receiver::Session {
  uint32_t id = 0;
  std::optional<DestTree> tree;
  bool dry_run = false;
  HashCache cache;
  std::map<uint32_t, std::unique_ptr<Incoming>> files;  // open temporaries, by file id
  ZstdDecompressor zstd;
  std::string scratch;
  // Read-only directories made owner-writable for this session (relative path -> the mode they had); they get
  // that mode back at commit, unless the commit sets the source's, or when the session ends without one.
  std::map<std::string, uint32_t> unlocked;

  ~Session() {
    for (auto& entry : files) discard(*entry.second);
    relock_all({});
  }
  // Calls `attempt` again after making the directory that holds `path` writable, if it failed for want of that.
  template <typename Attempt>
  auto with_unlock(std::string_view path, Attempt attempt) {
    auto result = attempt();
    if (result || !tree) return result;
    auto unlocked_dir = tree->unlock_parent_of(path);
    if (!unlocked_dir) return result;
    unlocked.emplace(unlocked_dir->first, unlocked_dir->second);
    return attempt();
  }
  void relock_all(const std::vector<Entry>& set_by_commit) {
    if (!tree) return;
    for (const auto& entry : unlocked) {  // (not a structured binding: clang 14 cannot capture one)
      const std::string& dir = entry.first;
      bool set = std::any_of(set_by_commit.begin(), set_by_commit.end(), [&](const Entry& e) { return e.path == dir; });
      if (!set) (void)tree->relock(dir, entry.second);
    }
    unlocked.clear();
  }
  static void discard(Incoming& file) {
    file.fd.reset();
    (void)file.parent.dir.remove(file.temp, false);
  }
  std::string shown(std::string_view path) const { return dest_display(tree ? tree->root() : "", path); }

  std::vector<AgentMessage> open(const SyncOpen& m);
  std::vector<AgentMessage> prepare(const SyncPrepare& m);
  std::vector<AgentMessage> start_file(const SyncFile& m);
  std::vector<AgentMessage> data(const SyncData& m);
  std::vector<AgentMessage> commit(const SyncCommit& m);
  AgentMessage finish(uint32_t file_id);
  AgentMessage fail_file(uint32_t file_id, uint64_t bytes, const std::string& why);
};

std::vector<AgentMessage> Receiver::Session::open(const SyncOpen& m) {
  auto fail = [&](const std::string& why) { return std::vector<AgentMessage>{SyncManifest{m.session, true, "", why}}; };
  dry_run = (m.flags & kSyncDryRun) != 0;
  auto rules = ExcludeRules::deserialize(m.rules);
  if (!rules) return fail(rules.error().message);
  auto opened = DestTree::open(m.root, !dry_run);
  if (!opened) {
    // A dry run against a destination that does not exist yet: everything would be new.
    if (dry_run && !posix::path_exists(m.root)) return {SyncManifest{m.session, true, "", ""}};
    return fail(opened.error().message);
  }
  tree.emplace(std::move(*opened));
  cache = HashCache::load(HashCache::path_for(m.root));
  auto manifest = scan_tree(m.root, *rules, &cache);
  if (!manifest) return fail(manifest.error().message);
  if (!dry_run) {
    for (const auto& temp : manifest->stale_temps) (void)tree->remove(temp);
    cache.forget_unused();
    (void)cache.save();
  }
  std::vector<AgentMessage> replies;
  const auto& entries = manifest->entries;
  size_t begin = 0;
  do {
    // Parts of bounded size: every entry is well under kManifestPart (paths are bounded by PATH_MAX).
    size_t end = begin, bytes = 0;
    while (end < entries.size() && bytes < kManifestPart) {
      bytes += entries[end].path.size() + entries[end].target.size() + 40;
      ++end;
    }
    std::vector<Entry> part(entries.begin() + static_cast<ptrdiff_t>(begin),
                            entries.begin() + static_cast<ptrdiff_t>(end));
    replies.push_back(SyncManifest{m.session, end == entries.size(), encode_entries(part), ""});
    begin = end;
  } while (begin < entries.size());
  return replies;
}

std::vector<AgentMessage> Receiver::Session::prepare(const SyncPrepare& m) {
  auto done = [&](std::string error) { return std::vector<AgentMessage>{SyncStepDone{m.session, SyncStep::prepare, error}}; };
  if (!tree) return done("no destination open");
  for (const auto& path : m.remove) {
    auto removed = with_unlock(path, [&] { return tree->remove(path); });
    if (!removed) return done(removed.error().message);
  }
  auto dirs = decode_entries(m.make_dirs);
  if (!dirs) return done(dirs.error().message);
  for (const auto& dir : *dirs) {
    auto made = with_unlock(dir.path, [&] { return tree->make_dir(dir.path); });
    if (!made) return done(made.error().message);
  }
  return done("");
}

AgentMessage Receiver::Session::fail_file(uint32_t file_id, uint64_t bytes, const std::string& why) {
  if (auto it = files.find(file_id); it != files.end()) {
    discard(*it->second);
    files.erase(it);
  }
  return SyncAck{id, file_id, SyncAckState::failed, bytes, why};
}

std::vector<AgentMessage> Receiver::Session::start_file(const SyncFile& m) {
  if (!tree) return {SyncAck{m.session, m.file, SyncAckState::failed, 0, "no destination open"}};
  if (files.count(m.file)) return {fail_file(m.file, 0, "file id reused")};
  auto parent = tree->parent_of(m.path, true);
  if (!parent) return {SyncAck{m.session, m.file, SyncAckState::failed, 0, parent.error().message}};
  auto file = std::make_unique<Incoming>();
  file->header = m;
  file->temp = fmt::format(".{}{}{}-{}", parent->name, kTempMarker, posix::current_pid(), m.file);
  file->parent = std::move(*parent);
  (void)file->parent.dir.remove(file->temp, false);
  auto created = with_unlock(m.path, [&] { return file->parent.dir.create_file(file->temp, 0600); });
  if (!created) {
    return {SyncAck{m.session, m.file, SyncAckState::failed, 0,
                    fmt::format("cannot create a temporary file for {}: {}", shown(m.path),
                                created.error().message)}};
  }
  file->fd = std::move(*created);
  files[m.file] = std::move(file);
  if (m.size == 0) return {finish(m.file)};
  return {};
}

std::vector<AgentMessage> Receiver::Session::data(const SyncData& m) {
  auto it = files.find(m.file);
  if (it == files.end()) return {};  // the file failed already: its remaining data is dropped
  Incoming& file = *it->second;
  std::string_view bytes = m.bytes;
  if (m.codec == SyncCodec::zstd) {
    if (m.raw_size > kMaxChunk) return {fail_file(m.file, file.written, "compressed chunk too large")};
    if (!zstd.decompress(m.bytes, m.raw_size, scratch)) {
      return {fail_file(m.file, file.written, fmt::format("corrupt compressed data for {}", shown(file.header.path)))};
    }
    bytes = scratch;
  }
  if (file.written + bytes.size() > file.header.size) {
    return {fail_file(m.file, file.written, fmt::format("more data than the {} bytes announced for {}",
                                                        file.header.size, shown(file.header.path)))};
  }
  if (auto wrote = posix::write_all(file.fd.get(), bytes); !wrote) {
    return {fail_file(m.file, file.written,
                      fmt::format("cannot write {}: {}", shown(file.header.path), wrote.error().message))};
  }
  file.hash.update(bytes);
  file.written += bytes.size();
  if (file.written == file.header.size) return {finish(m.file)};
  return {SyncAck{id, m.file, SyncAckState::progress, file.written, ""}};
}

AgentMessage Receiver::Session::finish(uint32_t file_id) {
  Incoming& file = *files.at(file_id);
  const SyncFile& h = file.header;
  uint64_t got = file.hash.digest();
  if (got != h.hash) {
    return fail_file(file_id, file.written,
                     fmt::format("{}: content hash {:016x} does not match the source's {:016x} (the source file "
                                 "changed while it was read?); not written",
                                 shown(h.path), got, h.hash));
  }
  if (auto set = posix::set_fd_meta(file.fd.get(), h.mode, h.mtime_ns); !set) {
    return fail_file(file_id, file.written,
                     fmt::format("cannot set mode/time of {}: {}", shown(h.path), set.error().message));
  }
  file.fd.reset();
  if (auto renamed = file.parent.dir.rename(file.temp, file.parent.name); !renamed) {
    return fail_file(file_id, file.written,
                     fmt::format("cannot rename into {}: {}", shown(h.path), renamed.error().message));
  }
  if (auto st = file.parent.dir.stat(file.parent.name); st && *st) {
    cache.store(h.path, identity_of(**st), h.hash);
  }
  uint64_t written = file.written;
  files.erase(file_id);
  return SyncAck{id, file_id, SyncAckState::done, written, ""};
}

std::vector<AgentMessage> Receiver::Session::commit(const SyncCommit& m) {
  auto done = [&](std::string error) { return std::vector<AgentMessage>{SyncStepDone{m.session, SyncStep::commit, error}}; };
  if (!tree) return done("no destination open");
  auto links = decode_entries(m.links);
  auto touch = decode_entries(m.touch);
  auto dirs = decode_entries(m.dir_meta);
  for (const auto* decoded : {&links, &touch, &dirs}) {
    if (!*decoded) return done(decoded->error().message);
  }
  for (const auto& link : *links) {
    auto made = with_unlock(link.path, [&] {
      return tree->make_symlink(link.path, link.target, fmt::format("{}-link", posix::current_pid()));
    });
    if (!made) return done(made.error().message);
  }
  for (const auto& file : *touch) {
    if (auto set = tree->set_meta(file.path, file.mode, file.mtime_ns); !set) return done(set.error().message);
    auto st = posix::lstat_path(dest_display(tree->root(), file.path));
    if (st && *st) cache.store(file.path, identity_of(**st), file.hash);
  }
  // Deepest first: setting a directory's time must come after every change inside it.
  std::vector<Entry> ordered = *dirs;
  std::sort(ordered.begin(), ordered.end(), [](const Entry& a, const Entry& b) { return a.path > b.path; });
  for (const auto& dir : ordered) {
    if (auto set = tree->set_meta(dir.path, dir.mode, dir.mtime_ns); !set) return done(set.error().message);
  }
  relock_all(*dirs);
  if (auto saved = cache.save(); !saved) return done(saved.error().message);
  return done("");
}

Receiver::Receiver() = default;
Receiver::~Receiver() = default;

bool Receiver::handles(const HeadMessage& message) {
  return std::holds_alternative<SyncOpen>(message) || std::holds_alternative<SyncPrepare>(message) ||
         std::holds_alternative<SyncFile>(message) || std::holds_alternative<SyncData>(message) ||
         std::holds_alternative<SyncCommit>(message);
}

std::vector<AgentMessage> Receiver::handle(const HeadMessage& message) {
  if (const auto* open = std::get_if<SyncOpen>(&message)) {
    session_ = std::make_unique<Session>();
    session_->id = open->session;
    return session_->open(*open);
  }
  if (!session_) return {AgentError{"sync frame without SyncOpen"}};
  return std::visit(
      [&](const auto& m) -> std::vector<AgentMessage> {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, SyncPrepare>) return session_->prepare(m);
        else if constexpr (std::is_same_v<M, SyncFile>) return session_->start_file(m);
        else if constexpr (std::is_same_v<M, SyncData>) return session_->data(m);
        else if constexpr (std::is_same_v<M, SyncCommit>) return session_->commit(m);
        else return {};
      },
      message);
}

}  // namespace muster::sync
