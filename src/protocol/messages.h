// The messages of the agent protocol (docs/agent-protocol.md, section 4), as plain structs.
// A Message is the closed set of them; encode/decode live in codec.h. Nothing here does I/O.
//
// Each message describes itself once: its wire type (kType), its name for diagnostics (kName), and its fields in
// wire order (`fields(message, visit)`), which the codec runs both to encode and to decode, so the two can never
// disagree. A visit is `visit(field, "name")`, `visit(enum_field, "name", Range{min, max})` for an enumerated u8,
// and `visit.check(condition, "why")` for a rule across fields that a decoded message must satisfy.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace muster::protocol {

inline constexpr uint32_t kProtocolVersion = 6;
inline constexpr uint32_t kMaxFrame = 16u << 20;        // length field upper bound
inline constexpr uint32_t kMaxOutputChunk = 64u << 10;  // agent splits worker output above this
inline constexpr uint32_t kAllWorkers = 0xFFFFFFFFu;
inline constexpr uint32_t kAllAttempts = 0xFFFFFFFFu;  // Signal/Terminate: the workers of every attempt

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
  worker_stack = 12,
  worker_progress = 13,
  worker_note = 14,
  node_lost = 15,
  attempt_cleared = 16,
  telemetry = 17,
  gpu_fault = 18,
  sync_digest = 28,
  sync_data_ready = 29,
  sync_data_linked = 30,
  sync_data_lost = 31,
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
  dump_stacks = 78,
  sync_send_manifest = 79,
  sync_data_listen = 80,
  sync_data_connect = 81,
  sync_data_drop = 82,
  telemetry_start = 83,
};

// The range of valid wire values of an enumerated field (u8 on the wire).
struct Range {
  uint8_t min, max;
};

// --- agent -> head
struct Hello {
  static constexpr Type kType = Type::hello;
  static constexpr const char* kName = "Hello";
  uint32_t protocol = kProtocolVersion;
  std::string version;
  std::string hostname;
  uint32_t pid = 0;
  std::vector<std::string> capabilities;
  std::string ssh_addr;
  std::vector<std::string> addresses;
  uint32_t max_open_files = 0;  // the agent's open-file limit (RLIMIT_NOFILE, raised); 0: unknown
  uint32_t free_port = 0;       // a TCP port free on this node when it started (PickPort's answer, a round trip early)
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.protocol, "protocol");
    visit(m.version, "version");
    visit(m.hostname, "hostname");
    visit(m.pid, "pid");
    visit(m.capabilities, "capabilities");
    visit(m.ssh_addr, "ssh_addr");
    visit(m.addresses, "addresses");
    visit(m.max_open_files, "max_open_files");
    visit(m.free_port, "free_port");
  }
  bool operator==(const Hello&) const = default;
};
struct WorkerStarted {
  static constexpr Type kType = Type::worker_started;
  static constexpr const char* kName = "WorkerStarted";
  uint32_t worker = 0;
  uint32_t pid = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.worker, "worker");
    visit(m.pid, "pid");
  }
  bool operator==(const WorkerStarted&) const = default;
};
enum class Stream : uint8_t { out = 1, err = 2 };
struct Output {
  static constexpr Type kType = Type::output;
  static constexpr const char* kName = "Output";
  uint32_t worker = 0;
  Stream stream = Stream::out;
  std::string bytes;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.worker, "worker");
    visit(m.stream, "stream", Range{1, 2});
    visit(m.bytes, "bytes");
  }
  bool operator==(const Output&) const = default;
};
enum class ExitHow : uint8_t { exited = 0, signaled = 1, failed_to_start = 2 };
struct WorkerExited {
  static constexpr Type kType = Type::worker_exited;
  static constexpr const char* kName = "WorkerExited";
  uint32_t worker = 0;
  ExitHow how = ExitHow::exited;
  int32_t code = 0;
  std::string detail;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.worker, "worker");
    visit(m.how, "how", Range{0, 2});
    visit(m.code, "code");
    visit(m.detail, "detail");
  }
  bool operator==(const WorkerExited&) const = default;
};
struct Heartbeat {  // both directions; the type byte says which
  static constexpr Type kType = Type::heartbeat;
  static constexpr const char* kName = "Heartbeat";
  uint64_t seq = 0;
  int64_t unix_ms = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.seq, "seq");
    visit(m.unix_ms, "unix_ms");
  }
  bool operator==(const Heartbeat&) const = default;
};
struct PortReply {
  static constexpr Type kType = Type::port_reply;
  static constexpr const char* kName = "PortReply";
  uint32_t request = 0;
  uint32_t port = 0;
  std::string error;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.request, "request");
    visit(m.port, "port");
    visit(m.error, "error");
  }
  bool operator==(const PortReply&) const = default;
};
struct AgentError {
  static constexpr Type kType = Type::agent_error;
  static constexpr const char* kName = "AgentError";
  std::string message;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.message, "message");
  }
  bool operator==(const AgentError&) const = default;
};
// Sync (section 6). `entries` fields hold a manifest's wire form (sync/manifest.h), opaque to this layer.
struct SyncManifest {  // one part of the destination's manifest; the last part has `last` set
  static constexpr Type kType = Type::sync_manifest;
  static constexpr const char* kName = "SyncManifest";
  uint32_t session = 0;
  bool last = false;
  std::string entries;
  std::string error;  // non-empty: the destination could not be scanned (then `last` is set)
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.last, "last");
    visit(m.entries, "entries");
    visit(m.error, "error");
  }
  bool operator==(const SyncManifest&) const = default;
};
// The answer to a SyncOpen with kSyncDigestFirst: what the destination holds, as a digest of the manifest's parts
// that a plan compares (sync/plan.h plan_digest); the manifest itself waits for SyncSendManifest.
struct SyncDigest {
  static constexpr Type kType = Type::sync_digest;
  static constexpr const char* kName = "SyncDigest";
  uint32_t session = 0;
  uint64_t entries = 0;  // how many entries the manifest holds
  std::string digest;    // 16 bytes
  std::string error;     // non-empty: the destination could not be scanned (no manifest follows)
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.entries, "entries");
    visit(m.digest, "digest");
    visit(m.error, "error");
  }
  bool operator==(const SyncDigest&) const = default;
};
// corrupt: the file's content did not verify (its hash, or a record of the direct data path): the temporary is gone
// and the head may send the file again; failed: anything else (it is not sent again).
// The direct data path (section 8a). SyncDataReady: this node listens for its parent's streams on `port` (or
// `error` says why it cannot). SyncDataLinked: this node's streams to node `node` (a child in the tree) are up, or
// `error` says why not (that child then gets its data over ssh). SyncDataLost: this node's incoming data link
// failed (`why`); it dropped the files it was receiving, and its own links to its children.
struct SyncDataReady {
  static constexpr Type kType = Type::sync_data_ready;
  static constexpr const char* kName = "SyncDataReady";
  uint32_t session = 0;
  uint32_t port = 0;
  std::string error;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.port, "port");
    visit(m.error, "error");
  }
  bool operator==(const SyncDataReady&) const = default;
};
struct SyncDataLinked {
  static constexpr Type kType = Type::sync_data_linked;
  static constexpr const char* kName = "SyncDataLinked";
  uint32_t session = 0;
  uint32_t node = 0;
  std::string error;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.node, "node");
    visit(m.error, "error");
  }
  bool operator==(const SyncDataLinked&) const = default;
};
struct SyncDataLost {
  static constexpr Type kType = Type::sync_data_lost;
  static constexpr const char* kName = "SyncDataLost";
  uint32_t session = 0;
  std::string why;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.why, "why");
  }
  bool operator==(const SyncDataLost&) const = default;
};
enum class SyncAckState : uint8_t { progress = 0, done = 1, failed = 2, corrupt = 3 };
struct SyncAck {  // bytes of file `file` written so far, or the file's verdict
  static constexpr Type kType = Type::sync_ack;
  static constexpr const char* kName = "SyncAck";
  uint32_t session = 0;
  uint32_t file = 0;
  SyncAckState state = SyncAckState::progress;
  uint64_t bytes = 0;
  std::string error;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.file, "file");
    visit(m.state, "state", Range{0, 3});
    visit(m.bytes, "bytes");
    visit(m.error, "error");
  }
  bool operator==(const SyncAck&) const = default;
};
struct Relayed {  // a frame from the node with index `hop` in the relay tree, below this agent (section 9)
  static constexpr Type kType = Type::relayed;
  static constexpr const char* kName = "Relayed";
  uint32_t hop = 0;
  std::string frame;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.hop, "hop");
    visit(m.frame, "frame");
  }
  bool operator==(const Relayed&) const = default;
};
enum class SyncStep : uint8_t { prepare = 1, commit = 2 };
struct SyncStepDone {
  static constexpr Type kType = Type::sync_step_done;
  static constexpr const char* kName = "SyncStepDone";
  uint32_t session = 0;
  SyncStep step = SyncStep::prepare;
  std::string error;  // empty: every operation of the step was applied
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.step, "step", Range{1, 2});
    visit(m.error, "error");
  }
  bool operator==(const SyncStepDone&) const = default;
};

// Diagnosis (section 10).
enum class StackKind : uint8_t { none = 0, python = 1, native = 2, kernel = 3 };
struct WorkerStack {  // the answer to DumpStacks for one worker
  static constexpr Type kType = Type::worker_stack;
  static constexpr const char* kName = "WorkerStack";
  uint32_t request = 0;
  uint32_t worker = 0;
  StackKind kind = StackKind::none;
  std::string note;  // how it was taken ("native: eu-stack") or why there is none
  std::string text;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.request, "request");
    visit(m.worker, "worker");
    visit(m.kind, "kind", Range{0, 3});
    visit(m.note, "note");
    visit(m.text, "text");
  }
  bool operator==(const WorkerStack&) const = default;
};
struct WorkerProgress {  // the worker touched its progress file
  static constexpr Type kType = Type::worker_progress;
  static constexpr const char* kName = "WorkerProgress";
  uint32_t worker = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.worker, "worker");
  }
  bool operator==(const WorkerProgress&) const = default;
};
struct WorkerNote {  // something the node learned about a worker that ended: "oom-kill", "error-file", ...
  static constexpr Type kType = Type::worker_note;
  static constexpr const char* kName = "WorkerNote";
  uint32_t worker = 0;
  std::string key;
  std::string text;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.worker, "worker");
    visit(m.key, "key");
    visit(m.text, "text");
  }
  bool operator==(const WorkerNote&) const = default;
};

// A GPU of this node logged an XID or an uncorrectable ECC error while the agent ran (agent/gpu_watch.h), sent at
// once: the head says it in the live log and, when `node_fault`, blames the node for the attempt's failure.
struct GpuFault {
  static constexpr Type kType = Type::gpu_fault;
  static constexpr const char* kName = "GpuFault";
  uint32_t xid = 0;
  std::string pci;   // the GPU's bus id ("0000:3b:00")
  std::string text;  // for a person: GPU, code, meaning (gpu::describe_event without the node's name)
  bool node_fault = false;  // the catalogue says the GPU or node is at fault, not the program
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.xid, "xid");
    visit(m.pci, "pci");
    visit(m.text, "text");
    visit(m.node_fault, "node_fault");
  }
  bool operator==(const GpuFault&) const = default;
};

// A node below this agent in the relay tree was lost (it could not be started, its connection closed, or it
// stopped answering): it and every node below it (section 9).
struct NodeLost {
  static constexpr Type kType = Type::node_lost;
  static constexpr const char* kName = "NodeLost";
  uint32_t node = 0;  // its index in the tree
  std::string why;
  std::string diagnostics;  // what its agent and ssh wrote on stderr
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.node, "node");
    visit(m.why, "why");
    visit(m.diagnostics, "diagnostics");
  }
  bool operator==(const NodeLost&) const = default;
};

// Every process group of the workers of `attempt` (and of earlier attempts) is gone from this node: the answer to
// Terminate{attempt}, sent after those workers' WorkerExited. The head starts the next attempt only once every
// node of this one said so.
struct AttemptCleared {
  static constexpr Type kType = Type::attempt_cleared;
  static constexpr const char* kName = "AttemptCleared";
  uint32_t attempt = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.attempt, "attempt");
  }
  bool operator==(const AttemptCleared&) const = default;
};

// Telemetry (section 11): the node's figures and its ranks' step timing over the last interval, about once a
// second after TelemetryStart. The records' meaning (which figure sits at which position) is telemetry's
// (src/telemetry/samples.h), opaque here: `node` holds one record, `ranks` and `gpus` one record per rank and per
// GPU, each `rank_fields` / `gpu_fields` u32s long, so a later version can append figures to a record.
struct Telemetry {
  static constexpr Type kType = Type::telemetry;
  static constexpr const char* kName = "Telemetry";
  int64_t unix_ms = 0;       // the agent's clock at the end of the interval
  uint32_t interval_ms = 0;  // how long the interval was
  std::vector<uint32_t> node;
  uint32_t rank_fields = 0;
  std::vector<uint32_t> ranks;
  uint32_t gpu_fields = 0;
  std::vector<uint32_t> gpus;
  std::vector<std::string> notes;  // facts that are text: the interface measured, a missing tool, a GPU's XID
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.unix_ms, "unix_ms");
    visit(m.interval_ms, "interval_ms");
    visit(m.node, "node");
    visit(m.rank_fields, "rank_fields");
    visit(m.ranks, "ranks");
    visit(m.gpu_fields, "gpu_fields");
    visit(m.gpus, "gpus");
    visit(m.notes, "notes");
    visit.check((m.ranks.empty() || m.rank_fields > 0) && (m.rank_fields == 0 || m.ranks.size() % m.rank_fields == 0),
                "ranks is not a whole number of records");
    visit.check((m.gpus.empty() || m.gpu_fields > 0) && (m.gpu_fields == 0 || m.gpus.size() % m.gpu_fields == 0),
                "gpus is not a whole number of records");
  }
  bool operator==(const Telemetry&) const = default;
};

// --- head -> agent
// SpawnWorker::features: what the agent sets up for the worker on its node (section 10).
inline constexpr uint32_t kFeatureDiagnostics = 1;  // stack hook, faulthandler, error file, progress file
inline constexpr uint32_t kFeatureFlightRecorder = 2;  // PyTorch's NCCL flight recorder, on nodes with GPUs
inline constexpr uint32_t kFeatureSteps = 4;  // step timing: the hook's step ring, the step marker FIFO (section 11)
struct SpawnWorker {
  static constexpr Type kType = Type::spawn_worker;
  static constexpr const char* kName = "SpawnWorker";
  uint32_t worker = 0;
  std::vector<std::string> argv;
  std::vector<std::string> env;
  std::string cwd;
  std::string job;        // the job id: names the node's directory for this job's files
  uint32_t features = 0;  // kFeature* bits
  uint32_t attempt = 0;   // the job's attempt (0, 1, ... after restarts): Terminate and Signal name it
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.worker, "worker");
    visit(m.argv, "argv");
    visit(m.env, "env");
    visit(m.cwd, "cwd");
    visit(m.job, "job");
    visit(m.features, "features");
    visit(m.attempt, "attempt");
  }
  bool operator==(const SpawnWorker&) const = default;
};
struct Signal {
  static constexpr Type kType = Type::signal;
  static constexpr const char* kName = "Signal";
  uint32_t worker = kAllWorkers;
  int32_t signal = 0;
  uint32_t attempt = kAllAttempts;  // only this attempt's workers (kAllAttempts: any)
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.worker, "worker");
    visit(m.signal, "signal");
    visit(m.attempt, "attempt");
  }
  bool operator==(const Signal&) const = default;
};
struct Terminate {
  static constexpr Type kType = Type::terminate;
  static constexpr const char* kName = "Terminate";
  uint32_t grace_ms = 0;
  uint32_t attempt = kAllAttempts;  // the workers of this attempt and earlier ones; AttemptCleared answers it
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.grace_ms, "grace_ms");
    visit(m.attempt, "attempt");
  }
  bool operator==(const Terminate&) const = default;
};
struct Ping {
  static constexpr Type kType = Type::ping;
  static constexpr const char* kName = "Ping";
  uint64_t seq = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.seq, "seq");
  }
  bool operator==(const Ping&) const = default;
};
struct PickPort {
  static constexpr Type kType = Type::pick_port;
  static constexpr const char* kName = "PickPort";
  uint32_t request = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.request, "request");
  }
  bool operator==(const PickPort&) const = default;
};
struct Shutdown {
  static constexpr Type kType = Type::shutdown;
  static constexpr const char* kName = "Shutdown";
  template <typename Self, typename Visit>
  static void fields(Self&, Visit&) {}
  bool operator==(const Shutdown&) const = default;
};
struct HeadHeartbeat {
  static constexpr Type kType = Type::head_heartbeat;
  static constexpr const char* kName = "HeadHeartbeat";
  uint64_t seq = 0;
  int64_t unix_ms = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.seq, "seq");
    visit(m.unix_ms, "unix_ms");
  }
  bool operator==(const HeadHeartbeat&) const = default;
};
// Start the agents of the subtree below the receiving agent (section 9): every node of it, parents before
// children; the receiving agent starts those whose parent is `self` and hands each the part below it.
inline constexpr uint8_t kRelaySsh = 0;    // RelayOpen::transport: the children are reached over ssh
inline constexpr uint8_t kRelayLocal = 1;  // ... or started on this machine (virtual nodes)
struct RelayOpen {
  static constexpr Type kType = Type::relay_open;
  static constexpr const char* kName = "RelayOpen";
  std::vector<std::string> destinations;
  std::vector<std::string> names;  // for messages, one per destination
  uint32_t connect_timeout_s = 10;
  uint32_t self = 0;                // the receiving agent's index in the tree
  std::vector<uint32_t> indices;    // each destination's index in the tree
  std::vector<uint32_t> parents;    // the index of each destination's parent
  uint8_t transport = kRelaySsh;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.destinations, "destinations");
    visit(m.names, "names");
    visit(m.connect_timeout_s, "connect_timeout_s");
    visit(m.self, "self");
    visit(m.indices, "indices");
    visit(m.parents, "parents");
    visit(m.transport, "transport");
    visit.check(m.names.size() == m.destinations.size() && m.indices.size() == m.destinations.size() &&
                    m.parents.size() == m.destinations.size(),
                "names, destinations, indices and parents differ in number");
  }
  bool operator==(const RelayOpen&) const = default;
};
struct Relay {  // deliver `frame` to every node of the tree whose index's bit is set in `hops` (bit i%8 of byte i/8)
  static constexpr Type kType = Type::relay;
  static constexpr const char* kName = "Relay";
  std::string hops;
  std::string frame;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.hops, "hops");
    visit(m.frame, "frame");
  }
  bool operator==(const Relay&) const = default;
};
inline constexpr uint8_t kSyncDryRun = 1;  // SyncOpen flag: scan only, change nothing on the node
inline constexpr uint8_t kSyncDigestFirst = 2;  // SyncOpen flag: answer SyncDigest; the manifest on SyncSendManifest
// SyncOpen flag: the root must be a fresh private directory: made by this sync, or an empty one of this user's
// that nobody else can enter and that is no link (one an earlier SyncOpen of the same push made): image push's
// stage directory.
inline constexpr uint8_t kSyncFreshRoot = 4;
struct SyncOpen {
  static constexpr Type kType = Type::sync_open;
  static constexpr const char* kName = "SyncOpen";
  uint32_t session = 0;
  std::string root;                 // absolute destination directory
  std::vector<std::string> rules;   // exclude rules (sync/exclude.h serialize())
  uint8_t flags = 0;
  uint32_t root_mode = 0;           // the source root's permission bits, which the root gets at commit; 0 unknown
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.root, "root");
    visit(m.rules, "rules");
    visit(m.flags, "flags");
    visit(m.root_mode, "root_mode");
  }
  bool operator==(const SyncOpen&) const = default;
};
struct SyncSendManifest {  // after SyncDigest: the node's digest differs from the head's, send the manifest
  static constexpr Type kType = Type::sync_send_manifest;
  static constexpr const char* kName = "SyncSendManifest";
  uint32_t session = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
  }
  bool operator==(const SyncSendManifest&) const = default;
};
struct SyncPrepare {  // before any file: deletions (children first), then directories to make
  static constexpr Type kType = Type::sync_prepare;
  static constexpr const char* kName = "SyncPrepare";
  uint32_t session = 0;
  std::vector<std::string> remove;
  std::string make_dirs;  // entries
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.remove, "remove");
    visit(m.make_dirs, "make_dirs");
  }
  bool operator==(const SyncPrepare&) const = default;
};
struct SyncFile {  // a file's content follows in SyncData frames, in order
  static constexpr Type kType = Type::sync_file;
  static constexpr const char* kName = "SyncFile";
  uint32_t session = 0;
  uint32_t file = 0;
  std::string path;
  uint64_t size = 0;
  uint32_t mode = 0;
  int64_t mtime_ns = 0;
  uint64_t hash = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.file, "file");
    visit(m.path, "path");
    visit(m.size, "size");
    visit(m.mode, "mode");
    visit(m.mtime_ns, "mtime_ns");
    visit(m.hash, "hash");
  }
  bool operator==(const SyncFile&) const = default;
};
enum class SyncCodec : uint8_t { raw = 0, zstd = 1, hole = 2 };  // hole: raw_size zero bytes, none sent
struct SyncData {
  static constexpr Type kType = Type::sync_data;
  static constexpr const char* kName = "SyncData";
  uint32_t session = 0;
  uint32_t file = 0;
  SyncCodec codec = SyncCodec::raw;
  uint32_t raw_size = 0;  // bytes after decompression
  std::string bytes;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.file, "file");
    visit(m.codec, "codec", Range{0, 2});
    visit(m.raw_size, "raw_size");
    visit(m.bytes, "bytes");
  }
  bool operator==(const SyncData&) const = default;
};
struct SyncCommit {  // after every file: symlinks, metadata of unchanged files, then directories' metadata
  static constexpr Type kType = Type::sync_commit;
  static constexpr const char* kName = "SyncCommit";
  uint32_t session = 0;
  std::string links;     // entries
  std::string touch;     // entries
  std::string dir_meta;  // entries
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.links, "links");
    visit(m.touch, "touch");
    visit(m.dir_meta, "dir_meta");
  }
  bool operator==(const SyncCommit&) const = default;
};

// The direct data path (section 8a). SyncDataListen: listen for the parent's `streams` TCP streams (cipher: 0
// plaintext, 1 AES-128-GCM, 2 ChaCha20-Poly1305; `secret`: the session's, 32 bytes), for `timeout_ms`; answered
// by SyncDataReady. SyncDataConnect: open `streams` streams to each child `nodes[i]` at `hosts[i]`:`ports[i]`;
// answered by one SyncDataLinked per child. SyncDataDrop: stop using the data link to child `node` (close it);
// what follows for that child goes over ssh.
struct SyncDataListen {
  static constexpr Type kType = Type::sync_data_listen;
  static constexpr const char* kName = "SyncDataListen";
  uint32_t session = 0;
  uint8_t cipher = 0;
  uint32_t streams = 1;
  std::string secret;
  uint32_t timeout_ms = 10'000;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.cipher, "cipher");
    visit(m.streams, "streams");
    visit(m.secret, "secret");
    visit(m.timeout_ms, "timeout_ms");
    visit.check(m.cipher <= 2, "unknown cipher");
    visit.check(m.streams >= 1 && m.streams <= 64, "streams must be 1..64");
  }
  bool operator==(const SyncDataListen&) const = default;
};
struct SyncDataConnect {
  static constexpr Type kType = Type::sync_data_connect;
  static constexpr const char* kName = "SyncDataConnect";
  uint32_t session = 0;
  uint8_t cipher = 0;
  uint32_t streams = 1;
  std::string secret;
  uint32_t timeout_ms = 10'000;
  std::vector<uint32_t> nodes;
  std::vector<std::string> hosts;
  std::vector<uint32_t> ports;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.cipher, "cipher");
    visit(m.streams, "streams");
    visit(m.secret, "secret");
    visit(m.timeout_ms, "timeout_ms");
    visit(m.nodes, "nodes");
    visit(m.hosts, "hosts");
    visit(m.ports, "ports");
    visit.check(m.cipher <= 2, "unknown cipher");
    visit.check(m.streams >= 1 && m.streams <= 64, "streams must be 1..64");
    visit.check(m.hosts.size() == m.nodes.size() && m.ports.size() == m.nodes.size(),
                "nodes, hosts and ports differ in number");
  }
  bool operator==(const SyncDataConnect&) const = default;
};
struct SyncDataDrop {
  static constexpr Type kType = Type::sync_data_drop;
  static constexpr const char* kName = "SyncDataDrop";
  uint32_t session = 0;
  uint32_t node = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.session, "session");
    visit(m.node, "node");
  }
  bool operator==(const SyncDataDrop&) const = default;
};

struct DumpStacks {  // every worker's stack (worker = kAllWorkers) or one's; answered by WorkerStack per worker
  static constexpr Type kType = Type::dump_stacks;
  static constexpr const char* kName = "DumpStacks";
  uint32_t request = 0;
  uint32_t worker = kAllWorkers;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.request, "request");
    visit(m.worker, "worker");
  }
  bool operator==(const DumpStacks&) const = default;
};

// Start (or change) the node's telemetry (section 11): a Telemetry frame every `interval_ms`; step lines matched by
// `step_pattern` (ECMAScript regex, empty: none) and tqdm's progress counted as steps of the worker that printed
// them (flags & kTelemetryTqdm).
inline constexpr uint32_t kTelemetryTqdm = 1;
struct TelemetryStart {
  static constexpr Type kType = Type::telemetry_start;
  static constexpr const char* kName = "TelemetryStart";
  uint32_t interval_ms = 1000;
  std::string step_pattern;
  uint32_t flags = 0;
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.interval_ms, "interval_ms");
    visit(m.step_pattern, "step_pattern");
    visit(m.flags, "flags");
    visit.check(m.interval_ms >= 100, "interval_ms below 100");
  }
  bool operator==(const TelemetryStart&) const = default;
};

using AgentMessage = std::variant<Hello, WorkerStarted, Output, WorkerExited, Heartbeat, PortReply, AgentError,
                                  SyncManifest, SyncAck, SyncStepDone, Relayed, WorkerStack, WorkerProgress,
                                  WorkerNote, NodeLost, SyncDigest, AttemptCleared, SyncDataReady, SyncDataLinked,
                                  SyncDataLost, Telemetry, GpuFault>;
using HeadMessage = std::variant<SpawnWorker, Signal, Terminate, Ping, PickPort, Shutdown, HeadHeartbeat, SyncOpen,
                                 SyncPrepare, SyncFile, SyncData, SyncCommit, RelayOpen, Relay, DumpStacks,
                                 SyncSendManifest, SyncDataListen, SyncDataConnect, SyncDataDrop, TelemetryStart>;


}  // namespace muster::protocol
