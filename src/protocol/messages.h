// The messages of the agent protocol (docs/agent-protocol.md, section 4), as plain structs.
// A Message is the closed set of them; encode/decode live in codec.h. Nothing here does I/O.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace muster::protocol {

inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr uint32_t kMaxFrame = 16u << 20;        // length field upper bound
inline constexpr uint32_t kMaxOutputChunk = 64u << 10;  // agent splits worker output above this
inline constexpr uint32_t kAllWorkers = 0xFFFFFFFFu;

// --- agent -> head
struct Hello {
  uint32_t protocol = kProtocolVersion;
  std::string version;
  std::string hostname;
  uint32_t pid = 0;
  std::vector<std::string> capabilities;
  std::string ssh_addr;
  std::vector<std::string> addresses;
  bool operator==(const Hello&) const = default;
};
struct WorkerStarted {
  uint32_t worker = 0;
  uint32_t pid = 0;
  bool operator==(const WorkerStarted&) const = default;
};
enum class Stream : uint8_t { out = 1, err = 2 };
struct Output {
  uint32_t worker = 0;
  Stream stream = Stream::out;
  std::string bytes;
  bool operator==(const Output&) const = default;
};
enum class ExitHow : uint8_t { exited = 0, signaled = 1, failed_to_start = 2 };
struct WorkerExited {
  uint32_t worker = 0;
  ExitHow how = ExitHow::exited;
  int32_t code = 0;
  std::string detail;
  bool operator==(const WorkerExited&) const = default;
};
struct Heartbeat {  // both directions; the type byte says which
  uint64_t seq = 0;
  int64_t unix_ms = 0;
  bool operator==(const Heartbeat&) const = default;
};
struct PortReply {
  uint32_t request = 0;
  uint32_t port = 0;
  std::string error;
  bool operator==(const PortReply&) const = default;
};
struct AgentError {
  std::string message;
  bool operator==(const AgentError&) const = default;
};
// Sync (section 6). `entries` fields hold a manifest's wire form (sync/manifest.h), opaque to this layer.
struct SyncManifest {  // one part of the destination's manifest; the last part has `last` set
  uint32_t session = 0;
  bool last = false;
  std::string entries;
  std::string error;  // non-empty: the destination could not be scanned (then `last` is set)
  bool operator==(const SyncManifest&) const = default;
};
enum class SyncAckState : uint8_t { progress = 0, done = 1, failed = 2 };
struct SyncAck {  // bytes of file `file` written so far, or the file's verdict
  uint32_t session = 0;
  uint32_t file = 0;
  SyncAckState state = SyncAckState::progress;
  uint64_t bytes = 0;
  std::string error;
  bool operator==(const SyncAck&) const = default;
};
struct Relayed {  // a frame from the node `hop` places down this agent's relay chain (section 9)
  uint32_t hop = 0;
  std::string frame;
  bool operator==(const Relayed&) const = default;
};
enum class SyncStep : uint8_t { prepare = 1, commit = 2 };
struct SyncStepDone {
  uint32_t session = 0;
  SyncStep step = SyncStep::prepare;
  std::string error;  // empty: every operation of the step was applied
  bool operator==(const SyncStepDone&) const = default;
};

// --- head -> agent
struct SpawnWorker {
  uint32_t worker = 0;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;
  bool operator==(const SpawnWorker&) const = default;
};
struct Signal {
  uint32_t worker = kAllWorkers;
  int32_t signal = 0;
  bool operator==(const Signal&) const = default;
};
struct Terminate {
  uint32_t grace_ms = 0;
  bool operator==(const Terminate&) const = default;
};
struct Ping {
  uint64_t seq = 0;
  bool operator==(const Ping&) const = default;
};
struct PickPort {
  uint32_t request = 0;
  bool operator==(const PickPort&) const = default;
};
struct Shutdown {
  bool operator==(const Shutdown&) const = default;
};
struct HeadHeartbeat {
  uint64_t seq = 0;
  int64_t unix_ms = 0;
  bool operator==(const HeadHeartbeat&) const = default;
};
struct RelayOpen {  // start a chain: this agent starts an agent on destinations[0], which gets the rest
  std::vector<std::string> destinations;
  std::vector<std::string> names;  // for messages, one per destination
  uint32_t connect_timeout_s = 10;
  bool operator==(const RelayOpen&) const = default;
};
struct Relay {  // deliver `frame` to every hop whose bit is set in `hops` (bit 0 of byte 0 = this agent)
  std::string hops;
  std::string frame;
  bool operator==(const Relay&) const = default;
};
inline constexpr uint8_t kSyncDryRun = 1;  // SyncOpen flag: scan only, change nothing on the node
struct SyncOpen {
  uint32_t session = 0;
  std::string root;                 // absolute destination directory
  std::vector<std::string> rules;   // exclude rules (sync/exclude.h serialize())
  uint8_t flags = 0;
  bool operator==(const SyncOpen&) const = default;
};
struct SyncPrepare {  // before any file: deletions (children first), then directories to make
  uint32_t session = 0;
  std::vector<std::string> remove;
  std::string make_dirs;  // entries
  bool operator==(const SyncPrepare&) const = default;
};
struct SyncFile {  // a file's content follows in SyncData frames, in order
  uint32_t session = 0;
  uint32_t file = 0;
  std::string path;
  uint64_t size = 0;
  uint32_t mode = 0;
  int64_t mtime_ns = 0;
  uint64_t hash = 0;
  bool operator==(const SyncFile&) const = default;
};
enum class SyncCodec : uint8_t { raw = 0, zstd = 1 };
struct SyncData {
  uint32_t session = 0;
  uint32_t file = 0;
  SyncCodec codec = SyncCodec::raw;
  uint32_t raw_size = 0;  // bytes after decompression
  std::string bytes;
  bool operator==(const SyncData&) const = default;
};
struct SyncCommit {  // after every file: symlinks, metadata of unchanged files, then directories' metadata
  uint32_t session = 0;
  std::string links;     // entries
  std::string touch;     // entries
  std::string dir_meta;  // entries
  bool operator==(const SyncCommit&) const = default;
};

using AgentMessage = std::variant<Hello, WorkerStarted, Output, WorkerExited, Heartbeat, PortReply, AgentError,
                                  SyncManifest, SyncAck, SyncStepDone, Relayed>;
using HeadMessage = std::variant<SpawnWorker, Signal, Terminate, Ping, PickPort, Shutdown, HeadHeartbeat, SyncOpen,
                                 SyncPrepare, SyncFile, SyncData, SyncCommit, RelayOpen, Relay>;

// Wire type bytes (section 4).
enum class Type : uint8_t {
  hello = 1,
  worker_started = 2,
  output = 3,
  worker_exited = 4,
  heartbeat = 5,
  port_reply = 6,
  agent_error = 7,
  sync_manifest = 8,
  sync_ack = 9,
  sync_step_done = 10,
  relayed = 11,
  spawn_worker = 64,
  signal = 65,
  terminate = 66,
  ping = 67,
  pick_port = 68,
  shutdown = 69,
  head_heartbeat = 70,
  sync_open = 71,
  sync_prepare = 72,
  sync_file = 73,
  sync_data = 74,
  sync_commit = 75,
  relay_open = 76,
  relay = 77,
};

}  // namespace muster::protocol
