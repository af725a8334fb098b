#include "sync_head/sync_push.h"

#include <algorithm>
#include <csignal>
#include <set>
#include <unordered_set>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/file.h"
#include "protocol/codec.h"
#include "protocol/hops.h"
#include "sync/flow_window.h"
#include "sync/hash_cache.h"
#include "sync/manifest.h"
#include "sync/plan.h"
#include "sync/zstd_codec.h"

namespace muster::sync_head {
namespace {

using namespace muster::protocol;

constexpr uint32_t kSession = 1;
constexpr size_t kChunk = 256u << 10;         // file bytes per SyncData frame
constexpr size_t kMinCompressible = 4096;    // smaller chunks go raw
constexpr uint64_t kMaxHole = 64u << 20;     // zero bytes one SyncData hole stands for (the node hashes them)
constexpr size_t kMaxFileErrors = 5;         // per node, in the report
constexpr int64_t kProgressEveryMs = 250;

struct NodeState {
  std::vector<sync::Entry> manifest;
  bool have_manifest = false;  // or nothing more will come: up to date by its digest, failed, lost
  bool committed = false;
  bool up_to_date = false;  // its digest matched the source's
  bool failed = false;  // lost or a fatal error: nothing more is sent to it
  std::unordered_set<std::string> wanted;  // paths of plan.send
  std::unordered_set<uint32_t> failed_files;
  uint64_t sent = 0, acked = 0;  // raw bytes of file data, for the window
  sync::FlowWindow window;
  uint64_t total = 0;
  std::vector<uint64_t> file_sent, file_acked;  // by file id
};

class Pusher final : public head::PoolListener {
 public:
  Pusher(head::AgentPool& pool, const SyncRequest& request, const PreparedSource& source,
         const ProgressCallback& progress)
      : pool_(pool),
        request_(request),
        progress_(progress),
        source_(source),
        nodes_(pool.size()) {
    report_.nodes.resize(nodes_.size());
    report_.tree_depth = pool.depth();
    report_.head_connections = pool.connections();
    report_.destination = request.destination;
  }

  Result<SyncReport> run();

  void on_message(size_t node, const AgentMessage& message) override;
  void on_lost(size_t node, const std::string& why, const std::string& diagnostics, bool) override {
    std::string text = fmt::format("node lost: {}{}", why, diagnostics.empty() ? "" : " (" + diagnostics + ")");
    fail_node(node, text);
    nodes_[node].have_manifest = true;
  }

 private:
  Result<void> pump(int timeout_ms);
  template <typename Done>
  Result<void> wait_until(Done done);
  void fail_node(size_t node, const std::string& why);
  bool active(size_t node) const { return !nodes_[node].failed && pool_.alive(node); }
  void on_node_message(size_t node, const AgentMessage& message);
  void on_digest(size_t node, const std::string& digest);
  size_t send_to_nodes(const std::vector<size_t>& nodes, const std::string& frame);
  void send_to_node(size_t node, const HeadMessage& message) { send_to_nodes({node}, encode(message)); }
  std::vector<size_t> all_nodes() const {
    std::vector<size_t> all(nodes_.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }
  void acked(size_t node, uint32_t file, uint64_t bytes);
  Result<void> send_file(uint32_t id, const sync::Entry& entry, const std::vector<size_t>& targets);
  // Waits for room in every target's window, then sends one SyncData of `raw` file bytes.
  Result<bool> send_chunk(uint32_t id, const std::vector<size_t>& targets, protocol::SyncData data, uint64_t raw);
  void send_to(const std::vector<size_t>& targets, uint32_t id, const std::string& frame, uint64_t raw);
  void report_progress(bool force);

  head::AgentPool& pool_;
  const SyncRequest& request_;
  const ProgressCallback& progress_;
  const PreparedSource& source_;
  std::vector<NodeState> nodes_;
  SyncReport report_;
  int64_t transfer_start_ms_ = 0;
  int64_t last_progress_ms_ = 0;
  sync::ZstdCompressor zstd_;

 public:
};

void Pusher::fail_node(size_t node, const std::string& why) {
  auto& state = nodes_[node];
  if (state.failed) return;
  state.failed = true;
  if (report_.nodes[node].error.empty()) report_.nodes[node].error = why;
}

void Pusher::acked(size_t node, uint32_t file, uint64_t bytes) {
  auto& state = nodes_[node];
  if (file >= state.file_acked.size()) return;
  uint64_t& was = state.file_acked[file];
  if (bytes > was) {
    state.acked += bytes - was;
    was = bytes;
    state.window.on_acked(state.acked, posix::monotonic_ms());
  }
}

// Through the pool: one frame per connection, each node of a tree passing it on to those below it that need it.
// Returns the number of the head's connections it went out on.
size_t Pusher::send_to_nodes(const std::vector<size_t>& nodes, const std::string& frame) {
  return pool_.queue_frame_to(nodes, frame);
}

void Pusher::on_message(size_t node, const AgentMessage& message) { on_node_message(node, message); }

void Pusher::on_node_message(size_t node, const AgentMessage& message) {
  auto& state = nodes_[node];
  auto& out = report_.nodes[node];
  if (const auto* digest = std::get_if<SyncDigest>(&message)) {
    if (!digest->error.empty()) {
      fail_node(node, digest->error);
      state.have_manifest = true;
      return;
    }
    on_digest(node, digest->digest);
  } else if (const auto* part = std::get_if<SyncManifest>(&message)) {
    if (!part->error.empty()) {
      fail_node(node, part->error);
      state.have_manifest = true;
      return;
    }
    auto entries = sync::decode_entries(part->entries);
    if (!entries) {
      fail_node(node, "bad manifest from the node: " + entries.error().message);
      state.have_manifest = true;
      return;
    }
    state.manifest.insert(state.manifest.end(), entries->begin(), entries->end());
    if (part->last) state.have_manifest = true;
  } else if (const auto* ack = std::get_if<SyncAck>(&message)) {
    if (ack->state == SyncAckState::failed) {
      state.failed_files.insert(ack->file);
      if (ack->file < state.file_sent.size()) acked(node, ack->file, state.file_sent[ack->file]);
      if (out.file_errors.size() < kMaxFileErrors) out.file_errors.push_back(ack->error);
      else if (out.file_errors.size() == kMaxFileErrors) out.file_errors.push_back("(more files failed)");
      return;
    }
    acked(node, ack->file, ack->bytes);
    if (ack->state == SyncAckState::done) {
      ++out.files_done;
      out.bytes_done += ack->bytes;
    }
  } else if (const auto* step = std::get_if<SyncStepDone>(&message)) {
    if (!step->error.empty()) fail_node(node, step->error);
    if (step->step == SyncStep::commit) {
      state.committed = true;
      out.finished_ms = posix::monotonic_ms() - transfer_start_ms_;
    }
  } else if (const auto* error = std::get_if<AgentError>(&message)) {
    fail_node(node, "agent error: " + error->message);
  }
}

// A node whose digest is the source's needs nothing (an empty plan, sync/plan.h): no manifest, no plan. Any other
// digest asks for the manifest, which is then compared entry by entry.
void Pusher::on_digest(size_t node, const std::string& digest) {
  auto& state = nodes_[node];
  if (state.have_manifest) return;
  if (digest == source_.digest) {
    state.have_manifest = true;
    state.up_to_date = true;
    return;
  }
  if (active(node)) send_to_node(node, SyncSendManifest{kSession});
}

Result<void> Pusher::pump(int timeout_ms) {
  auto signals = pool_.poll(timeout_ms, *this);
  if (!signals) return signals.error();
  for (int signal : *signals) {
    if (signal == SIGINT || signal == SIGTERM || signal == SIGHUP) {
      return make_error(ErrorKind::interrupted, "sync interrupted; no destination file is left half-written, "
                                                "run it again to finish");
    }
  }
  report_progress(false);
  return {};
}

template <typename Done>
Result<void> Pusher::wait_until(Done done) {
  // Bounded by the pool: a silent node is declared lost after the heartbeat timeout, which ends its wait.
  while (!done()) {
    if (auto pumped = pump(100); !pumped) return pumped;
  }
  return {};
}

void Pusher::report_progress(bool force) {
  if (!progress_ || transfer_start_ms_ == 0) return;
  int64_t now = posix::monotonic_ms();
  if (!force && now - last_progress_ms_ < kProgressEveryMs) return;
  last_progress_ms_ = now;
  SyncProgress p;
  p.elapsed_ms = now - transfer_start_ms_;
  for (const auto& state : nodes_) {
    p.node_total.push_back(state.total);
    p.node_done.push_back(std::min(state.acked, state.total));
    p.total_bytes += state.total;
  }
  progress_(p);
}

void Pusher::send_to(const std::vector<size_t>& targets, uint32_t id, const std::string& frame, uint64_t raw) {
  std::vector<size_t> live;
  for (size_t node : targets) {
    auto& state = nodes_[node];
    if (!active(node) || state.failed_files.count(id)) continue;
    live.push_back(node);
    state.sent += raw;
    state.file_sent[id] += raw;
    report_.nodes[node].wire_bytes += frame.size();
  }
  if (live.empty()) return;
  report_.head_wire_bytes += frame.size() * send_to_nodes(live, frame);
}

Result<bool> Pusher::send_chunk(uint32_t id, const std::vector<size_t>& targets, SyncData data, uint64_t raw) {
  // Window: the slowest target sets the pace; a lost node leaves `active` and stops holding it back.
  auto waited = wait_until([&] {
    return std::all_of(targets.begin(), targets.end(), [&](size_t node) {
      return !active(node) || nodes_[node].sent - nodes_[node].acked < nodes_[node].window.bytes();
    });
  });
  if (!waited) return waited.error();
  if (std::none_of(targets.begin(), targets.end(), [&](size_t n) { return active(n) && !nodes_[n].failed_files.count(id); })) {
    return false;
  }
  if (data.codec != SyncCodec::hole) report_.unique_bytes += raw;
  send_to(targets, id, encode(HeadMessage{data}), raw);
  return true;
}

Result<void> Pusher::send_file(uint32_t id, const sync::Entry& entry, const std::vector<size_t>& targets) {
  std::string path = request_.source + "/" + entry.path;
  auto fd = posix::open_read(path, source_.scanned.followed_files.count(entry.path) == 0);
  std::string read_error;
  if (!fd) read_error = fd.error().message;
  send_to(targets, id, encode(HeadMessage{SyncFile{kSession, id, entry.path, entry.size, entry.mode, entry.mtime_ns,
                                                   entry.hash}}),
          0);
  // A sparse file (fewer blocks than its size) goes as its data and its holes; the nodes leave the holes holes.
  std::vector<std::pair<uint64_t, uint64_t>> data{{0, entry.size}};
  if (read_error.empty()) {
    auto st = posix::stat_fd(fd->get());
    if (st && st->blocks * 512 < st->size) {
      if (auto ranges = posix::data_ranges(fd->get(), entry.size)) data = std::move(*ranges);
    }
  }
  bool try_compress = request_.compress;
  std::string chunk(kChunk, '\0'), packed;
  uint64_t offset = 0;
  size_t range = 0;
  while (offset < entry.size) {
    while (range < data.size() && data[range].second <= offset) ++range;
    uint64_t data_start = range < data.size() ? data[range].first : entry.size;
    if (data_start > offset) {  // a hole up to the next data
      auto hole = static_cast<uint32_t>(std::min<uint64_t>(data_start - offset, kMaxHole));
      auto sent = send_chunk(id, targets, SyncData{kSession, id, SyncCodec::hole, hole, {}}, hole);
      if (!sent) return sent.error();
      if (!*sent) break;
      offset += hole;
      continue;
    }
    size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, data[range].second - offset));
    size_t got = 0;
    if (read_error.empty()) {
      auto read = posix::read_full_at(fd->get(), std::span<char>(chunk.data(), want), offset);
      if (read) got = *read;
      else read_error = read.error().message;
    }
    // A file that shrank or cannot be read is padded: the nodes' hash check then refuses it, so nothing torn
    // is ever renamed into place, and the report says why.
    std::fill(chunk.begin() + static_cast<ptrdiff_t>(got), chunk.begin() + static_cast<ptrdiff_t>(want), '\0');
    if (got < want && read_error.empty()) read_error = "the file shrank while it was read";
    std::string_view raw(chunk.data(), want);
    SyncData frame{kSession, id, SyncCodec::raw, static_cast<uint32_t>(want), {}};
    if (try_compress && want >= kMinCompressible) {
      if (zstd_.compress_if_smaller(raw, packed)) {
        frame.codec = SyncCodec::zstd;
        frame.bytes = packed;
      } else {
        try_compress = false;  // incompressible content (weights, archives): stop trying for this file
      }
    }
    if (frame.codec == SyncCodec::raw) frame.bytes.assign(raw);
    auto sent = send_chunk(id, targets, std::move(frame), want);
    if (!sent) return sent.error();
    if (!*sent) break;
    offset += want;
  }
  if (!read_error.empty()) {
    for (size_t node : targets) {
      auto& errors = report_.nodes[node].file_errors;
      if (errors.size() < kMaxFileErrors) errors.push_back(fmt::format("{}: {}", path, read_error));
    }
  }
  return {};
}

// The wire form wants entries in path order (the receiver orders what must be ordered otherwise).
std::string encode_sorted(std::vector<sync::Entry> entries) {
  std::sort(entries.begin(), entries.end(), [](const sync::Entry& a, const sync::Entry& b) { return a.path < b.path; });
  return sync::encode_entries(entries);
}

// Everything the commit makes on the node: copies, hard links, symbolic links (one field, in path order).
std::string commit_links(const sync::SyncPlan& plan) {
  std::vector<sync::Entry> all = plan.copies;
  all.insert(all.end(), plan.hardlinks.begin(), plan.hardlinks.end());
  all.insert(all.end(), plan.links.begin(), plan.links.end());
  return encode_sorted(std::move(all));
}

Result<SyncReport> Pusher::run() {
  int64_t start = posix::monotonic_ms() - source_.scan_ms;
  const sync::Manifest* source = &source_.scanned.manifest;
  report_.links = source_.scanned.links;
  report_.hashed_bytes = source->hashed_bytes;
  report_.source_entries = source->entries.size();
  for (const auto& entry : source->entries) {
    if (entry.kind == sync::EntryKind::hardlink) ++report_.source_hardlinks;
    if (entry.kind != sync::EntryKind::file) continue;
    ++report_.source_files;
    report_.source_bytes += entry.size;
  }

  // Only after the source's scan succeeded: a source that cannot be synced changes nothing on the nodes (not
  // even the destination's root is made). Each node answers with the digest of its manifest and keeps the
  // manifest until the head asks for it (on_digest).
  uint8_t flags = kSyncDigestFirst | (request_.dry_run ? kSyncDryRun : 0) |
                  (request_.fresh_destination ? kSyncFreshRoot : 0);
  for (size_t node = 0; node < nodes_.size(); ++node) {
    if (!active(node)) fail_node(node, "node lost"), nodes_[node].have_manifest = true;
  }
  send_to_nodes(all_nodes(), encode(HeadMessage{SyncOpen{kSession, request_.destination, request_.rules.serialize(), flags,
                                                           source->root_mode}}));
  if (auto waited = wait_until([&] {
        return std::all_of(nodes_.begin(), nodes_.end(), [](const NodeState& s) { return s.have_manifest; });
      });
      !waited) {
    return waited.error();
  }
  for (size_t node = 0; node < nodes_.size(); ++node) {
    auto& state = nodes_[node];
    if (state.failed || state.up_to_date) continue;
    sync::Manifest destination;
    destination.entries = std::move(state.manifest);
    report_.nodes[node].plan = sync::plan_sync(*source, destination, request_.delete_extraneous);
    const auto& plan = report_.nodes[node].plan;
    state.total = plan.send_bytes;
    for (const auto& entry : plan.send) state.wanted.insert(entry.path);
  }
  report_.scan_ms = posix::monotonic_ms() - start;
  if (request_.dry_run) return std::move(report_);
  if (request_.star_limit_bytes > 0) {
    uint64_t most = 0;
    for (const auto& node : report_.nodes) most = std::max(most, node.plan.send_bytes);
    if (most > request_.star_limit_bytes) {  // nothing was changed on any node yet (no SyncPrepare went out)
      report_.over_star_limit = most;
      return std::move(report_);
    }
  }

  transfer_start_ms_ = posix::monotonic_ms();
  std::vector<size_t> busy;  // nodes with something to do
  for (size_t node = 0; node < nodes_.size(); ++node) {
    const auto& plan = report_.nodes[node].plan;
    if (nodes_[node].failed || plan.empty()) continue;
    busy.push_back(node);
    nodes_[node].file_sent.assign(source->entries.size() + 1, 0);
    nodes_[node].file_acked.assign(source->entries.size() + 1, 0);
    send_to_node(node, SyncPrepare{kSession, plan.remove, encode_sorted(plan.make_dirs)});
  }
  for (size_t index = 0; index < source->entries.size(); ++index) {
    const auto& entry = source->entries[index];
    if (entry.kind != sync::EntryKind::file) continue;
    std::vector<size_t> targets;
    for (size_t node : busy) {
      if (active(node) && nodes_[node].wanted.count(entry.path)) targets.push_back(node);
    }
    if (targets.empty()) continue;
    if (auto sent = send_file(static_cast<uint32_t>(index + 1), entry, targets); !sent) return sent.error();
  }
  for (size_t node : busy) {
    const auto& plan = report_.nodes[node].plan;
    send_to_node(node, SyncCommit{kSession, commit_links(plan), encode_sorted(plan.touch),
                                  encode_sorted(plan.dir_meta)});
  }
  if (auto waited = wait_until([&] {
        return std::all_of(busy.begin(), busy.end(), [&](size_t n) { return !active(n) || nodes_[n].committed; });
      });
      !waited) {
    return waited.error();
  }
  report_.transfer_ms = posix::monotonic_ms() - transfer_start_ms_;
  report_progress(true);
  return std::move(report_);
}

}  // namespace

Result<PreparedSource> prepare_source(const SyncRequest& request) {
  int64_t start = posix::monotonic_ms();
  if (!posix::path_exists(request.source)) return make_error(ErrorKind::usage, "{}: no such directory", request.source);
  auto cache = sync::HashCache::load(sync::HashCache::path_for(request.source, request.cache_dir));
  auto scanned = scan_source(request.source, request.destination, request.rules, &cache, request.links);
  if (!scanned) return scanned.error();
  cache.forget_unused();
  (void)cache.save();  // a cache that cannot be written only costs time next run (and is not written if unchanged)
  PreparedSource prepared;
  prepared.digest = sync::plan_digest(scanned->manifest.entries);
  prepared.scanned = std::move(*scanned);
  prepared.scan_ms = posix::monotonic_ms() - start;
  return prepared;
}

bool SyncReport::ok() const {
  return std::all_of(nodes.begin(), nodes.end(), [](const NodeSyncReport& n) { return n.ok(); });
}

Result<SyncReport> sync_to_nodes(head::AgentPool& pool, const SyncRequest& request, const PreparedSource& source,
                                 const ProgressCallback& progress) {
  return Pusher(pool, request, source, progress).run();
}

}  // namespace muster::sync_head
