#include "sync/receiver.h"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/environment.h"
#include "posix/file.h"
#include "sync/dest_tree.h"
#include "sync/exclude.h"
#include "sync/content_hash.h"
#include "sync/hash_cache.h"
#include "sync/manifest.h"
#include "sync/plan.h"
#include "sync/zstd_codec.h"
#include "util/random.h"

namespace muster::sync {
namespace {

using namespace muster::protocol;

constexpr size_t kManifestPart = 4u << 20;      // bytes of encoded entries per SyncManifest frame
constexpr uint32_t kMaxChunk = kMaxFrame - 64;  // a SyncData never expands beyond one frame's worth
constexpr size_t kCopyBuffer = 1u << 20;
constexpr int64_t kTempGraceNs = 2'000'000'000;  // a temporary younger than this is never taken for stale
constexpr size_t kMaxTempStem = 160;             // bytes of the file's name kept in its temporary's name

// Feeds `bytes` zero bytes to `hash` (a hole reads as zeros).
void hash_zeros(ContentHasher& hash, uint64_t bytes) {
  static const std::string zeros(256u << 10, '\0');
  while (bytes > 0) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(bytes, zeros.size()));
    hash.update(std::string_view(zeros.data(), n));
    bytes -= n;
  }
}

// `.<name>.muster-tmp-<writer>-<what>`: in the file's own directory, hidden, and recognizable as a temporary
// (manifest.h); a long name is shortened so the temporary stays within NAME_MAX.
std::string temp_name(const std::string& name, const std::string& writer, std::string_view what) {
  std::string stem = name.size() > kMaxTempStem ? name.substr(0, kMaxTempStem) : name;
  return fmt::format(".{}{}{}-{}", stem, kTempMarker, writer, what);
}

// Why the root of `tree` is no fresh private directory (SyncOpen kSyncFreshRoot), or "": made by this session, or
// an empty one of this user's that nobody else can enter and whose name is no link (an earlier SyncOpen of the
// same push, which sent nothing, made it).
std::string fresh_root(const DestTree& tree) {
  if (tree.created_root()) return "";
  auto link = posix::lstat_path(tree.root());
  auto st = tree.dir().stat_self();
  auto names = tree.dir().names();
  bool fresh = link && *link && !(*link)->is_link() && st && st->uid == posix::effective_uid() &&
               (st->mode & 077) == 0 && names && names->empty();
  return fresh ? "" : fmt::format("{} exists already: a new private directory was expected there", tree.root());
}

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
  // This writer's part of its temporaries' names: random, so two syncs into one destination (two heads, or
  // two nodes on one shared filesystem) never pick the same name; liveness is the flock, not the name.
  std::string writer = random_hex(12);
  std::optional<DestTree> tree;
  bool dry_run = false;
  std::optional<std::vector<Entry>> held_manifest;  // kSyncDigestFirst: sent on SyncSendManifest
  HashCache cache;
  std::map<uint32_t, std::unique_ptr<Incoming>> files;  // open temporaries, by file id
  ZstdDecompressor zstd;
  std::string scratch;
  // Read-only directories made owner-writable for this session (relative path -> the mode they had); they get
  // that mode back at commit, unless the commit sets the source's, or when the session ends without one.
  std::map<std::string, uint32_t> unlocked;
  uint32_t root_mode = 0;  // the source root's permission bits (SyncOpen), the root's at commit; 0 unknown

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
  void relock_all(const std::vector<Entry>& set_by_commit, bool root_set = false) {
    if (!tree) return;
    for (const auto& entry : unlocked) {  // (not a structured binding: clang 14 cannot capture one)
      const std::string& dir = entry.first;
      bool set = (dir.empty() && root_set) ||
                 std::any_of(set_by_commit.begin(), set_by_commit.end(), [&](const Entry& e) { return e.path == dir; });
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
  std::vector<AgentMessage> encode_manifest(uint32_t session, const std::vector<Entry>& entries);
  std::vector<AgentMessage> send_manifest(const SyncSendManifest& m);
  std::vector<AgentMessage> prepare(const SyncPrepare& m);
  std::vector<AgentMessage> start_file(const SyncFile& m);
  std::vector<AgentMessage> data(const SyncData& m);
  std::vector<AgentMessage> commit(const SyncCommit& m);
  Result<void> copy_local(const Entry& entry);
  Result<void> apply_commit_entry(const Entry& entry);
  AgentMessage finish(uint32_t file_id);
  AgentMessage fail_file(uint32_t file_id, uint64_t bytes, const std::string& why);
};

std::vector<AgentMessage> Receiver::Session::open(const SyncOpen& m) {
  auto fail = [&](const std::string& why) { return std::vector<AgentMessage>{SyncManifest{m.session, true, "", why}}; };
  dry_run = (m.flags & kSyncDryRun) != 0;
  auto rules = ExcludeRules::deserialize(m.rules);
  if (!rules) return fail(rules.error().message);
  root_mode = m.root_mode & 07777;
  auto opened = DestTree::open(m.root, !dry_run, root_mode);
  if (!opened) {
    // A dry run against a destination that does not exist yet: everything would be new.
    if (dry_run && !posix::path_exists(m.root)) return {SyncManifest{m.session, true, "", ""}};
    return fail(opened.error().message);
  }
  tree.emplace(std::move(*opened));
  if ((m.flags & kSyncFreshRoot) != 0 && !dry_run) {
    if (auto fresh = fresh_root(*tree); !fresh.empty()) {
      tree.reset();
      return fail(fresh);
    }
  }
  if (!dry_run && root_mode != 0) tree->give_existing_root(root_mode);
  cache = HashCache::load(HashCache::path_for(m.root));
  auto manifest = scan_tree(m.root, *rules, &cache);
  if (!manifest) return fail(manifest.error().message);
  if (!dry_run) {
    int64_t now = posix::wall_clock_ns();
    for (const auto& temp : manifest->stale_temps) (void)tree->remove_stale_temp(temp, now, kTempGraceNs);
    cache.forget_unused();
    (void)cache.save();
  }
  const auto& entries = manifest->entries;
  if (m.flags & kSyncDigestFirst) {
    // The head compares digests first; the manifest waits here for SyncSendManifest (or the session's end).
    std::string digest = plan_digest(entries);
    uint64_t count = entries.size();
    held_manifest = std::move(manifest->entries);
    return {SyncDigest{m.session, count, std::move(digest), ""}};
  }
  return encode_manifest(m.session, entries);
}

std::vector<AgentMessage> Receiver::Session::encode_manifest(uint32_t session, const std::vector<Entry>& entries) {
  std::vector<AgentMessage> replies;
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
    replies.push_back(SyncManifest{session, end == entries.size(), encode_entries(part), ""});
    begin = end;
  } while (begin < entries.size());
  return replies;
}

std::vector<AgentMessage> Receiver::Session::send_manifest(const SyncSendManifest& m) {
  if (!held_manifest) {
    return {SyncManifest{m.session, true, "", "SyncSendManifest without a SyncOpen that asked for a digest first"}};
  }
  auto replies = encode_manifest(m.session, *held_manifest);
  held_manifest.reset();
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
  file->temp = temp_name(parent->name, writer, std::to_string(m.file));
  file->parent = std::move(*parent);
  auto created = with_unlock(m.path, [&] { return file->parent.dir.create_file(file->temp, 0600); });
  if (!created) {
    return {SyncAck{m.session, m.file, SyncAckState::failed, 0,
                    fmt::format("cannot create a temporary file for {}: {}", shown(m.path),
                                created.error().message)}};
  }
  file->fd = std::move(*created);
  (void)posix::try_lock_exclusive(file->fd.get());  // held until the file is in place: see remove_stale_temp
  files[m.file] = std::move(file);
  if (m.size == 0) return {finish(m.file)};
  return {};
}

std::vector<AgentMessage> Receiver::Session::data(const SyncData& m) {
  auto it = files.find(m.file);
  if (it == files.end()) return {};  // the file failed already: its remaining data is dropped
  Incoming& file = *it->second;
  std::string_view bytes = m.bytes;
  if (m.codec == SyncCodec::hole) {
    if (!m.bytes.empty() || file.written + m.raw_size > file.header.size) {
      return {fail_file(m.file, file.written, fmt::format("malformed hole in {}", shown(file.header.path)))};
    }
    if (auto skipped = posix::skip_forward(file.fd.get(), m.raw_size); !skipped) {
      return {fail_file(m.file, file.written,
                        fmt::format("cannot write {}: {}", shown(file.header.path), skipped.error().message))};
    }
    hash_zeros(file.hash, m.raw_size);
    file.written += m.raw_size;
    if (file.written == file.header.size) return {finish(m.file)};
    return {SyncAck{id, m.file, SyncAckState::progress, file.written, ""}};
  }
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
  // The size first: a file that ends in a hole has none of that hole written.
  if (auto sized = posix::truncate_fd(file.fd.get(), h.size); !sized) {
    return fail_file(file_id, file.written, fmt::format("cannot write {}: {}", shown(h.path), sized.error().message));
  }
  if (auto set = posix::set_fd_meta(file.fd.get(), h.mode, h.mtime_ns); !set) {
    return fail_file(file_id, file.written,
                     fmt::format("cannot set mode/time of {}: {}", shown(h.path), set.error().message));
  }
  if (auto renamed = file.parent.dir.rename(file.temp, file.parent.name); !renamed) {
    return fail_file(file_id, file.written,
                     fmt::format("cannot rename into {}: {}", shown(h.path), renamed.error().message));
  }
  if (auto st = posix::stat_fd(file.fd.get())) cache.store(h.path, identity_of(*st), h.hash);
  file.fd.reset();  // (the lock goes with it, now that the temporary's name is gone)
  uint64_t written = file.written;
  files.erase(file_id);
  return SyncAck{id, file_id, SyncAckState::done, written, ""};
}

// A file the node makes from content it holds at `entry.target` (sync/plan.h): copied into a temporary next to
// its destination (holes stay holes), verified against the source's hash, then given its metadata and renamed.
Result<void> Receiver::Session::copy_local(const Entry& entry) {
  auto from = tree->parent_of(entry.target, false);
  if (!from) return from.error();
  auto in = from->dir.open_read(from->name);
  if (!in) return make_error(ErrorKind::io, "cannot read {}: {}", shown(entry.target), in.error().message);
  auto ranges = posix::data_ranges(in->get(), entry.size);
  if (!ranges) return make_error(ErrorKind::io, "cannot read {}: {}", shown(entry.target), ranges.error().message);
  auto parent = tree->parent_of(entry.path, true);
  if (!parent) return parent.error();
  std::string temp = temp_name(parent->name, writer, "copy");
  auto out = with_unlock(entry.path, [&] { return parent->dir.create_file(temp, 0600); });
  if (!out) return make_error(ErrorKind::io, "cannot create a temporary file for {}: {}", shown(entry.path), out.error().message);
  (void)posix::try_lock_exclusive(out->get());
  auto fail = [&](std::string why) -> Result<void> {
    (void)parent->dir.remove(temp, false);
    return make_error(ErrorKind::io, "{}", why);
  };
  ContentHasher hash;
  std::string buffer(kCopyBuffer, '\0');
  uint64_t at = 0;
  for (const auto& [begin, end] : *ranges) {
    hash_zeros(hash, begin - at);
    if (auto skipped = posix::skip_forward(out->get(), begin - at); !skipped) return fail(skipped.error().message);
    for (at = begin; at < end;) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), end - at));
      auto got = posix::read_full_at(in->get(), std::span<char>(buffer.data(), want), at);
      if (!got || *got != want) return fail(fmt::format("{} changed while it was copied", shown(entry.target)));
      std::string_view chunk(buffer.data(), want);
      if (auto wrote = posix::write_all(out->get(), chunk); !wrote) {
        return fail(fmt::format("cannot write {}: {}", shown(entry.path), wrote.error().message));
      }
      hash.update(chunk);
      at += want;
    }
  }
  hash_zeros(hash, entry.size - std::min(at, entry.size));
  if (hash.digest() != entry.hash) {
    return fail(fmt::format("{}: the content copied from {} is not the source's (changed on the node?); not written",
                            shown(entry.path), shown(entry.target)));
  }
  if (auto done = posix::truncate_fd(out->get(), entry.size); !done) return fail(done.error().message);
  if (auto set = posix::set_fd_meta(out->get(), entry.mode, entry.mtime_ns); !set) return fail(set.error().message);
  if (auto renamed = parent->dir.rename(temp, parent->name); !renamed) {
    return fail(fmt::format("cannot rename into {}: {}", shown(entry.path), renamed.error().message));
  }
  if (auto st = posix::stat_fd(out->get())) cache.store(entry.path, identity_of(*st), entry.hash);
  return {};
}

Result<void> Receiver::Session::apply_commit_entry(const Entry& entry) {
  switch (entry.kind) {
    case EntryKind::copy: return copy_local(entry);
    case EntryKind::hardlink:
      return with_unlock(entry.path, [&] { return tree->make_hardlink(entry.path, entry.target, writer + "-link"); });
    case EntryKind::symlink:
      return with_unlock(entry.path, [&] { return tree->make_symlink(entry.path, entry.target, writer + "-link"); });
    default: return make_error(ErrorKind::protocol, "sync commit: {} is no link or copy", entry.path);
  }
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
  // Copies first (a hard link may name one as its file), then hard links, then symbolic links.
  std::vector<Entry> ordered = *links;
  std::stable_sort(ordered.begin(), ordered.end(), [](const Entry& a, const Entry& b) {
    auto rank = [](EntryKind kind) { return kind == EntryKind::copy ? 0 : kind == EntryKind::hardlink ? 1 : 2; };
    return rank(a.kind) < rank(b.kind);
  });
  for (const auto& entry : ordered) {
    if (auto made = apply_commit_entry(entry); !made) return done(made.error().message);
  }
  for (const auto& file : *touch) {
    auto set = tree->set_meta(file.path, file.mode, file.mtime_ns);
    if (!set) return done(set.error().message);
    // The new identity (ctime, maybe mtime) comes from the descriptor set_meta changed, and is recorded only when
    // that is still the file the scan hashed: a file swapped in since is hashed again by the next scan, never
    // taken for the source's content.
    auto scanned = cache.known_identity(file.path);
    if (set->is_file() && scanned && scanned->inode == set->inode && scanned->device == set->device &&
        scanned->size == set->size) {
      cache.store(file.path, identity_of(*set), file.hash);
    }
  }
  // Deepest first: setting a directory's time must come after every change inside it.
  std::vector<Entry> deepest_first = *dirs;
  std::sort(deepest_first.begin(), deepest_first.end(), [](const Entry& a, const Entry& b) { return a.path > b.path; });
  for (const auto& dir : deepest_first) {
    if (auto set = tree->set_meta(dir.path, dir.mode, dir.mtime_ns); !set) return done(set.error().message);
  }
  bool root_set = root_mode != 0 && tree->created_root();
  if (root_set) {  // the source root's mode, last: a root this sync made was private while files arrived
    if (auto set = tree->set_root_mode(root_mode); !set) return done(set.error().message);
  }
  relock_all(*dirs, root_set);
  if (auto saved = cache.save(); !saved) return done(saved.error().message);
  return done("");
}

Receiver::Receiver() = default;
Receiver::~Receiver() = default;

bool Receiver::handles(const HeadMessage& message) {
  return std::holds_alternative<SyncOpen>(message) || std::holds_alternative<SyncSendManifest>(message) ||
         std::holds_alternative<SyncPrepare>(message) ||
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
        if constexpr (std::is_same_v<M, SyncSendManifest>) return session_->send_manifest(m);
        else if constexpr (std::is_same_v<M, SyncPrepare>) return session_->prepare(m);
        else if constexpr (std::is_same_v<M, SyncFile>) return session_->start_file(m);
        else if constexpr (std::is_same_v<M, SyncData>) return session_->data(m);
        else if constexpr (std::is_same_v<M, SyncCommit>) return session_->commit(m);
        else return {};
      },
      message);
}

}  // namespace muster::sync
