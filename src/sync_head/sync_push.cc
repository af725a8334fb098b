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
#include "sync_head/data_routes.h"

namespace muster::sync_head {
namespace {

using namespace muster::protocol;

constexpr uint32_t kSession = 1;
constexpr size_t kChunk = 256u << 10;         // file bytes per SyncData frame
constexpr size_t kMinCompressible = 4096;    // smaller chunks go raw
constexpr uint64_t kMaxHole = 64u << 20;     // zero bytes one SyncData hole stands for (the node hashes them)
constexpr size_t kMaxFileErrors = 5;         // per node, in the report
constexpr int64_t kProgressEveryMs = 250;
constexpr int kMaxSends = 4;                 // sends of one file to one node, the first included
constexpr int64_t kStallMs = 30'000;         // unacknowledged data and no ack for this long: the route is stuck

// One file's sends to one node.
struct FileTrack {
  enum class State : uint8_t { idle, sending, done, failed, again } state = State::idle;  // again: send it again
  uint8_t sends = 0;
  uint64_t sent = 0, acked = 0;  // raw bytes of the current send
};

struct NodeState {
  std::vector<sync::Entry> manifest;
  bool have_manifest = false;  // or nothing more will come: up to date by its digest, failed, lost
  bool committed = false;
  bool up_to_date = false;  // its digest matched the source's
  bool failed = false;  // lost or a fatal error: nothing more is sent to it
  std::unordered_set<std::string> wanted;  // paths of plan.send
  uint64_t sent = 0, acked = 0;  // raw bytes of file data, for the window
  sync::FlowWindow window;
  uint64_t total = 0;
  std::vector<FileTrack> files;  // by file id
  int64_t last_ack_ms = 0;       // the stall guard's clock
  bool stalled_once = false;
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
    if (routes_) routes_->on_node_lost(node);
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
  void on_ack(size_t node, const SyncAck& ack);
  // Everything sent of `file` to `node` counts as acknowledged (the window), and its state becomes `state`.
  void settle(size_t node, uint32_t file, FileTrack::State state);
  // The node dropped the files it was receiving (its data link broke, or the route stalled): they go again.
  void send_again(size_t node, const std::string& why);
  void check_stalls(int64_t now);
  Result<void> send_file(uint32_t id, const sync::Entry& entry, const std::vector<size_t>& targets);
  // One SyncData: `bytes` (raw or zstd), a hole of `raw_size` zeros, or (plaintext on the direct path) `raw_size`
  // bytes of `file` from `offset`, sent with sendfile.
  struct Chunk {
    SyncCodec codec = SyncCodec::raw;
    uint32_t raw_size = 0;
    std::string_view bytes;
    std::shared_ptr<posix::Fd> file;
    uint64_t offset = 0;
  };
  // Waits for room in every target's window, then sends the chunk.
  Result<bool> send_chunk(uint32_t id, const std::vector<size_t>& targets, const Chunk& chunk);
  std::vector<size_t> sending(const std::vector<size_t>& targets, uint32_t id) const;
  void count_sent(const std::vector<size_t>& nodes, uint32_t id, size_t frame_size, uint64_t raw);
  void send_to(const std::vector<size_t>& targets, uint32_t id, const std::string& frame, uint64_t raw);
  Result<void> set_up_data_path(const std::vector<size_t>& busy);
  Result<void> send_files(const std::vector<size_t>& busy);
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
  std::unique_ptr<DataRoutes> routes_;
  bool data_phase_ = false;  // frames after the manifests take routes_

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
  if (file >= state.files.size()) return;
  auto& track = state.files[file];
  if (track.state != FileTrack::State::sending) return;  // (an ack of an earlier send)
  state.last_ack_ms = posix::monotonic_ms();
  if (bytes > track.acked) {
    state.acked += std::min(bytes, track.sent) - std::min(track.acked, track.sent);
    track.acked = bytes;
    state.window.on_acked(state.acked, state.last_ack_ms);
  }
}

void Pusher::settle(size_t node, uint32_t file, FileTrack::State to) {
  auto& state = nodes_[node];
  if (file >= state.files.size()) return;
  auto& track = state.files[file];
  if (track.sent > track.acked) state.acked += track.sent - track.acked;
  track.acked = track.sent;
  track.state = to;
}

void Pusher::send_again(size_t node, const std::string& why) {
  (void)why;
  auto& state = nodes_[node];
  for (uint32_t id = 0; id < state.files.size(); ++id) {
    if (state.files[id].state == FileTrack::State::sending) settle(node, id, FileTrack::State::again);
  }
  state.last_ack_ms = posix::monotonic_ms();
}

// A node with data unacknowledged and no ack for kStallMs: on the direct path, its route is stuck (a firewall that
// started dropping the port, a link that died without a reset): it goes over ssh and gets its files again. A
// second stall fails the node.
void Pusher::check_stalls(int64_t now) {
  if (!routes_ || !data_phase_) return;
  for (size_t node = 0; node < nodes_.size(); ++node) {
    auto& state = nodes_[node];
    if (!active(node) || state.sent <= state.acked || now - state.last_ack_ms < kStallMs) continue;
    std::string why = fmt::format("no progress for {} s", kStallMs / 1000);
    if (state.stalled_once) {
      fail_node(node, why);
      continue;
    }
    state.stalled_once = true;
    routes_->route_over_ssh(node, why);
    send_again(node, why);
  }
}

// Through the pool (or, in the data phase, the direct data path): one frame per connection, each node of a tree
// passing it on to those below it that need it. Returns the number of the head's connections it went out on.
size_t Pusher::send_to_nodes(const std::vector<size_t>& nodes, const std::string& frame) {
  if (data_phase_) return routes_->send(nodes, frame);
  return pool_.queue_frame_to(nodes, frame);
}

void Pusher::on_message(size_t node, const AgentMessage& message) {
  if (routes_) {
    std::vector<std::pair<size_t, std::string>> lost;
    bool taken = routes_->on_message(node, message, lost);
    for (const auto& [which, why] : lost) send_again(which, why);
    if (taken) return;
  }
  on_node_message(node, message);
}

void Pusher::on_ack(size_t node, const SyncAck& ack) {
  auto& state = nodes_[node];
  auto& out = report_.nodes[node];
  if (ack.file >= state.files.size() || state.files[ack.file].state != FileTrack::State::sending) return;
  auto& track = state.files[ack.file];
  auto record = [&](const std::string& error) {
    if (out.file_errors.size() < kMaxFileErrors) out.file_errors.push_back(error);
    else if (out.file_errors.size() == kMaxFileErrors) out.file_errors.push_back("(more files failed)");
  };
  if (ack.state == SyncAckState::failed || ack.state == SyncAckState::corrupt) {
    bool again = ack.state == SyncAckState::corrupt && track.sends < kMaxSends;
    settle(node, ack.file, again ? FileTrack::State::again : FileTrack::State::failed);
    if (!again) record(track.sends > 1 ? fmt::format("{} (sent {} times)", ack.error, track.sends) : ack.error);
    return;
  }
  acked(node, ack.file, ack.bytes);
  if (ack.state == SyncAckState::done) {
    track.state = FileTrack::State::done;
    ++out.files_done;
    out.bytes_done += ack.bytes;
  }
}

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
    on_ack(node, *ack);
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
  if (routes_) routes_->flush();
  auto signals = pool_.poll(timeout_ms, *this);
  if (!signals) return signals.error();
  for (int signal : *signals) {
    if (signal == SIGINT || signal == SIGTERM || signal == SIGHUP) {
      return make_error(ErrorKind::interrupted, "sync interrupted; no destination file is left half-written, "
                                                "run it again to finish");
    }
  }
  check_stalls(posix::monotonic_ms());
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

std::vector<size_t> Pusher::sending(const std::vector<size_t>& targets, uint32_t id) const {
  std::vector<size_t> live;
  for (size_t node : targets) {
    if (active(node) && nodes_[node].files[id].state == FileTrack::State::sending) live.push_back(node);
  }
  return live;
}

void Pusher::count_sent(const std::vector<size_t>& nodes, uint32_t id, size_t frame_size, uint64_t raw) {
  for (size_t node : nodes) {
    auto& state = nodes_[node];
    state.sent += raw;
    state.files[id].sent += raw;
    report_.nodes[node].wire_bytes += frame_size;
  }
}

void Pusher::send_to(const std::vector<size_t>& targets, uint32_t id, const std::string& frame, uint64_t raw) {
  std::vector<size_t> live = sending(targets, id);
  if (live.empty()) return;
  count_sent(live, id, frame.size(), raw);
  report_.head_wire_bytes += frame.size() * send_to_nodes(live, frame);
}

Result<bool> Pusher::send_chunk(uint32_t id, const std::vector<size_t>& targets, const Chunk& chunk) {
  // Window: the slowest target sets the pace; a lost node leaves `active` and stops holding it back.
  auto waited = wait_until([&] {
    return std::all_of(targets.begin(), targets.end(), [&](size_t node) {
      return !active(node) || nodes_[node].sent - nodes_[node].acked < nodes_[node].window.bytes();
    });
  });
  if (!waited) return waited.error();
  std::vector<size_t> live = sending(targets, id);
  if (live.empty()) return false;
  uint64_t raw = chunk.raw_size;
  if (chunk.codec != SyncCodec::hole) report_.unique_bytes += raw;
  size_t size = chunk.file ? chunk.raw_size : chunk.bytes.size();
  std::string header = encode_sync_data_header(kSession, id, chunk.codec, chunk.raw_size, size);
  count_sent(live, id, header.size() + size, raw);
  std::vector<size_t> over_ssh;
  if (data_phase_) {
    // The direct path: sealed straight from the chunk (or sent from the file), no frame copy.
    DataRoutes::DataChunk data{header, chunk.bytes, chunk.file, chunk.offset, size};
    report_.head_wire_bytes += (header.size() + size) * routes_->send_data(live, data, over_ssh);
    routes_->flush();
  } else {
    over_ssh = std::move(live);
  }
  if (over_ssh.empty()) return true;
  std::string frame = header;
  if (chunk.file) {
    frame.resize(header.size() + size);
    std::span<char> into(frame.data() + header.size(), size);
    auto read = posix::read_full_at(chunk.file->get(), into, chunk.offset);
    if (!read || *read < size) std::fill(into.begin() + (read ? static_cast<ptrdiff_t>(*read) : 0), into.end(), '\0');
  } else {
    frame.append(chunk.bytes);
  }
  report_.head_wire_bytes += frame.size() * pool_.queue_frame_to(over_ssh, frame);
  return true;
}

Result<void> Pusher::send_file(uint32_t id, const sync::Entry& entry, const std::vector<size_t>& targets) {
  std::string path = request_.source + "/" + entry.path;
  auto opened = posix::open_read(path, source_.scanned.followed_files.count(entry.path) == 0);
  std::string read_error;
  if (!opened) read_error = opened.error().message;
  std::shared_ptr<posix::Fd> fd = opened ? std::make_shared<posix::Fd>(std::move(*opened)) : nullptr;
  for (size_t node : targets) {  // a new send of the file to each target, from its start
    auto& track = nodes_[node].files[id];
    track.state = FileTrack::State::sending;
    if (++track.sends > 1) ++report_.nodes[node].files_resent;
    track.sent = track.acked = 0;
  }
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
      auto sent = send_chunk(id, targets, Chunk{SyncCodec::hole, hole, {}, nullptr, 0});
      if (!sent) return sent.error();
      if (!*sent) break;
      offset += hole;
      continue;
    }
    size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, data[range].second - offset));
    // Plaintext on the direct path, incompressible: from the file to the socket with sendfile, never read here (a
    // file that shrinks meanwhile is padded with zeros there: the nodes' hash check refuses it).
    if (!try_compress && read_error.empty() && routes_ && data_phase_ && routes_->can_send_file(sending(targets, id))) {
      auto sent = send_chunk(id, targets, Chunk{SyncCodec::raw, static_cast<uint32_t>(want), {}, fd, offset});
      if (!sent) return sent.error();
      if (!*sent) break;
      offset += want;
      continue;
    }
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
    Chunk frame{SyncCodec::raw, static_cast<uint32_t>(want), std::string_view(chunk.data(), want), nullptr, 0};
    if (try_compress && want >= kMinCompressible) {
      if (zstd_.compress_if_smaller(frame.bytes, packed)) {
        frame.codec = SyncCodec::zstd;
        frame.bytes = packed;
      } else {
        try_compress = false;  // incompressible content (weights, archives): stop trying for this file
      }
    }
    auto sent = send_chunk(id, targets, frame);
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

// The direct data path, when it pays: every node listens, the links open hop by hop (data_routes.h). What could not
// be made stays on ssh, with the reason in the report; `--data-path direct` makes that an error instead.
Result<void> Pusher::set_up_data_path(const std::vector<size_t>& busy) {
  using Mode = SyncRequest::DataPath;
  if (request_.data_path == Mode::ssh || busy.empty()) return {};
  uint64_t most = 0;
  for (size_t node : busy) most = std::max(most, report_.nodes[node].plan.send_bytes);
  if (request_.data_path == Mode::automatic && most < request_.direct_min_bytes) return {};
  routes_ = std::make_unique<DataRoutes>(pool_, kSession, request_.direct);
  routes_->start();
  int64_t deadline = posix::monotonic_ms() + 2 * request_.direct.timeout_ms + 2000;
  if (auto waited = wait_until([&] { return routes_->settled() || posix::monotonic_ms() > deadline; }); !waited) {
    return waited.error();
  }
  if (!routes_->settled()) routes_->give_up_waiting("no answer");
  report_.data_notes = routes_->notes();
  if (request_.data_path == Mode::direct && !report_.data_notes.empty()) {
    std::string notes;
    for (const auto& note : report_.data_notes) notes += "\n  " + note;
    return make_error(ErrorKind::unreachable, "--data-path direct: nodes cannot reach each other over TCP:{}\n(no file "
                      "was sent; --data-path auto sends over ssh where TCP cannot go)", notes);
  }
  size_t hops = routes_->direct_hops();
  data_phase_ = hops > 0;
  if (data_phase_) {
    report_.data_path = fmt::format("direct TCP, {}, {} stream{} per hop ({} of {} hops)",
                                    sync::cipher_name(request_.direct.cipher), request_.direct.streams,
                                    request_.direct.streams == 1 ? "" : "s", hops, hops + report_.data_notes.size());
  }
  return {};
}

// Every file some node needs, once from disk to all of them; then, in rounds, the files a node must get again
// (content that did not verify, files in flight when its data link broke), until none is left (kMaxSends bounds it).
Result<void> Pusher::send_files(const std::vector<size_t>& busy) {
  const auto& entries = source_.scanned.manifest.entries;
  auto targets_of = [&](size_t index, FileTrack::State want) {
    std::vector<size_t> targets;
    for (size_t node : busy) {
      if (!active(node)) continue;
      auto state = nodes_[node].files[index + 1].state;
      if (state == want && (want != FileTrack::State::idle || nodes_[node].wanted.count(entries[index].path))) {
        targets.push_back(node);
      }
    }
    return targets;
  };
  for (int round = 0; round < kMaxSends; ++round) {
    auto want = round == 0 ? FileTrack::State::idle : FileTrack::State::again;
    for (size_t index = 0; index < entries.size(); ++index) {
      if (entries[index].kind != sync::EntryKind::file) continue;
      auto targets = targets_of(index, want);
      if (targets.empty()) continue;
      if (auto sent = send_file(static_cast<uint32_t>(index + 1), entries[index], targets); !sent) return sent.error();
    }
    // Every send answered (done, failed, or to go again) before the next round is chosen.
    auto waited = wait_until([&] {
      return std::all_of(busy.begin(), busy.end(), [&](size_t n) { return !active(n) || nodes_[n].acked >= nodes_[n].sent; });
    });
    if (!waited) return waited.error();
    bool again = std::any_of(busy.begin(), busy.end(), [&](size_t n) {
      return active(n) && std::any_of(nodes_[n].files.begin(), nodes_[n].files.end(),
                                      [](const FileTrack& t) { return t.state == FileTrack::State::again; });
    });
    if (!again) break;
  }
  for (size_t node : busy) {  // what is still to go again after the last round
    for (uint32_t id = 0; id < nodes_[node].files.size(); ++id) {
      if (nodes_[node].files[id].state != FileTrack::State::again) continue;
      nodes_[node].files[id].state = FileTrack::State::failed;
      auto& errors = report_.nodes[node].file_errors;
      if (errors.size() < kMaxFileErrors) {
        errors.push_back(fmt::format("{}: not delivered after {} sends", entries[id - 1].path, kMaxSends));
      }
    }
  }
  return {};
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

  std::vector<size_t> busy;  // nodes with something to do
  for (size_t node = 0; node < nodes_.size(); ++node) {
    if (!nodes_[node].failed && !report_.nodes[node].plan.empty()) busy.push_back(node);
  }
  if (auto direct = set_up_data_path(busy); !direct) return direct.error();
  transfer_start_ms_ = posix::monotonic_ms();
  for (size_t node : busy) {
    const auto& plan = report_.nodes[node].plan;
    nodes_[node].files.assign(source->entries.size() + 1, FileTrack{});
    nodes_[node].last_ack_ms = transfer_start_ms_;
    send_to_node(node, SyncPrepare{kSession, plan.remove, encode_sorted(plan.make_dirs)});
  }
  if (auto sent = send_files(busy); !sent) return sent.error();
  for (size_t node : busy) {
    const auto& plan = report_.nodes[node].plan;
    send_to_node(node, SyncCommit{kSession, commit_links(plan), encode_sorted(plan.touch),
                                  encode_sorted(plan.dir_meta)});
  }
  if (routes_) routes_->finish();  // the end of the data, after the commits: each node passes it on
  if (auto waited = wait_until([&] {
        return std::all_of(busy.begin(), busy.end(), [&](size_t n) { return !active(n) || nodes_[n].committed; });
      });
      !waited) {
    return waited.error();
  }
  report_.transfer_ms = posix::monotonic_ms() - transfer_start_ms_;
  if (routes_) report_.data_notes = routes_->notes();  // with the links that broke on the way
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
