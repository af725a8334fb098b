#include "protocol/codec.h"

#include <cassert>
#include <type_traits>
#include <utility>

#include "protocol/wire.h"

namespace muster::protocol {

namespace {

// --- payload writers, one per message, fields in spec order

void write(WireWriter& w, const Hello& m) {
  w.u32(m.protocol);
  w.str(m.version);
  w.str(m.hostname);
  w.u32(m.pid);
  w.str_list(m.capabilities);
  w.str(m.ssh_addr);
  w.str_list(m.addresses);
}
void write(WireWriter& w, const WorkerStarted& m) {
  w.u32(m.worker);
  w.u32(m.pid);
}
void write(WireWriter& w, const Output& m) {
  w.u32(m.worker);
  w.u8(static_cast<uint8_t>(m.stream));
  w.str(m.bytes);
}
void write(WireWriter& w, const WorkerExited& m) {
  w.u32(m.worker);
  w.u8(static_cast<uint8_t>(m.how));
  w.i32(m.code);
  w.str(m.detail);
}
void write_heartbeat(WireWriter& w, uint64_t seq, int64_t unix_ms) {
  w.u64(seq);
  w.i64(unix_ms);
}
void write(WireWriter& w, const Heartbeat& m) {
  write_heartbeat(w, m.seq, m.unix_ms);
}
void write(WireWriter& w, const PortReply& m) {
  w.u32(m.request);
  w.u32(m.port);
  w.str(m.error);
}
void write(WireWriter& w, const AgentError& m) {
  w.str(m.message);
}
void write(WireWriter& w, const SpawnWorker& m) {
  w.u32(m.worker);
  w.str_list(m.argv);
  w.str_list(m.env);
  w.str(m.cwd);
}
void write(WireWriter& w, const Signal& m) {
  w.u32(m.worker);
  w.i32(m.signal);
}
void write(WireWriter& w, const Terminate& m) {
  w.u32(m.grace_ms);
}
void write(WireWriter& w, const Ping& m) {
  w.u64(m.seq);
}
void write(WireWriter& w, const PickPort& m) {
  w.u32(m.request);
}
void write(WireWriter& w, const SyncManifest& m) {
  w.u32(m.session);
  w.u8(m.last ? 1 : 0);
  w.str(m.entries);
  w.str(m.error);
}
void write(WireWriter& w, const SyncAck& m) {
  w.u32(m.session);
  w.u32(m.file);
  w.u8(static_cast<uint8_t>(m.state));
  w.u64(m.bytes);
  w.str(m.error);
}
void write(WireWriter& w, const SyncStepDone& m) {
  w.u32(m.session);
  w.u8(static_cast<uint8_t>(m.step));
  w.str(m.error);
}
void write(WireWriter& w, const SyncOpen& m) {
  w.u32(m.session);
  w.str(m.root);
  w.str_list(m.rules);
  w.u8(m.flags);
}
void write(WireWriter& w, const SyncPrepare& m) {
  w.u32(m.session);
  w.str_list(m.remove);
  w.str(m.make_dirs);
}
void write(WireWriter& w, const SyncFile& m) {
  w.u32(m.session);
  w.u32(m.file);
  w.str(m.path);
  w.u64(m.size);
  w.u32(m.mode);
  w.i64(m.mtime_ns);
  w.u64(m.hash);
}
void write(WireWriter& w, const SyncData& m) {
  w.u32(m.session);
  w.u32(m.file);
  w.u8(static_cast<uint8_t>(m.codec));
  w.u32(m.raw_size);
  w.str(m.bytes);
}
void write(WireWriter& w, const SyncCommit& m) {
  w.u32(m.session);
  w.str(m.links);
  w.str(m.touch);
  w.str(m.dir_meta);
}
void write(WireWriter& w, const Relayed& m) {
  w.u32(m.hop);
  w.str(m.frame);
}
void write(WireWriter& w, const RelayOpen& m) {
  w.str_list(m.destinations);
  w.str_list(m.names);
  w.u32(m.connect_timeout_s);
}
void write(WireWriter& w, const Relay& m) {
  w.str(m.hops);
  w.str(m.frame);
}
void write(WireWriter&, const Shutdown&) {}
void write(WireWriter& w, const HeadHeartbeat& m) {
  write_heartbeat(w, m.seq, m.unix_ms);
}

// --- payload readers; a failed read leaves the reader failed and the result is discarded

void read(WireReader& r, Hello& m) {
  m.protocol = r.u32("protocol");
  m.version = r.str("version");
  m.hostname = r.str("hostname");
  m.pid = r.u32("pid");
  m.capabilities = r.str_list("capabilities");
  m.ssh_addr = r.str("ssh_addr");
  m.addresses = r.str_list("addresses");
}
void read(WireReader& r, WorkerStarted& m) {
  m.worker = r.u32("worker");
  m.pid = r.u32("pid");
}
void read(WireReader& r, Output& m) {
  m.worker = r.u32("worker");
  uint8_t stream = r.u8("stream");
  if (r.ok() && stream != 1 && stream != 2) r.fail(fmt::format("stream {} is neither 1 nor 2", stream));
  m.stream = static_cast<Stream>(stream);
  m.bytes = r.str("bytes");
}
void read(WireReader& r, WorkerExited& m) {
  m.worker = r.u32("worker");
  uint8_t how = r.u8("how");
  if (r.ok() && how > 2) r.fail(fmt::format("how {} is not 0, 1 or 2", how));
  m.how = static_cast<ExitHow>(how);
  m.code = r.i32("code");
  m.detail = r.str("detail");
}
void read(WireReader& r, Heartbeat& m) {
  m.seq = r.u64("seq");
  m.unix_ms = r.i64("unix_ms");
}
void read(WireReader& r, PortReply& m) {
  m.request = r.u32("request");
  m.port = r.u32("port");
  m.error = r.str("error");
}
void read(WireReader& r, AgentError& m) {
  m.message = r.str("message");
}
void read(WireReader& r, SpawnWorker& m) {
  m.worker = r.u32("worker");
  m.argv = r.str_list("argv");
  m.env = r.str_list("env");
  m.cwd = r.str("cwd");
}
void read(WireReader& r, Signal& m) {
  m.worker = r.u32("worker");
  m.signal = r.i32("signal");
}
void read(WireReader& r, Terminate& m) {
  m.grace_ms = r.u32("grace_ms");
}
void read(WireReader& r, Ping& m) {
  m.seq = r.u64("seq");
}
void read(WireReader& r, PickPort& m) {
  m.request = r.u32("request");
}
void read(WireReader& r, SyncManifest& m) {
  m.session = r.u32("session");
  uint8_t last = r.u8("last");
  if (r.ok() && last > 1) r.fail(fmt::format("last {} is neither 0 nor 1", last));
  m.last = last == 1;
  m.entries = r.str("entries");
  m.error = r.str("error");
}
void read(WireReader& r, SyncAck& m) {
  m.session = r.u32("session");
  m.file = r.u32("file");
  uint8_t state = r.u8("state");
  if (r.ok() && state > 2) r.fail(fmt::format("state {} is not 0, 1 or 2", state));
  m.state = static_cast<SyncAckState>(state);
  m.bytes = r.u64("bytes");
  m.error = r.str("error");
}
void read(WireReader& r, SyncStepDone& m) {
  m.session = r.u32("session");
  uint8_t step = r.u8("step");
  if (r.ok() && step != 1 && step != 2) r.fail(fmt::format("step {} is neither 1 nor 2", step));
  m.step = static_cast<SyncStep>(step);
  m.error = r.str("error");
}
void read(WireReader& r, SyncOpen& m) {
  m.session = r.u32("session");
  m.root = r.str("root");
  m.rules = r.str_list("rules");
  m.flags = r.u8("flags");
}
void read(WireReader& r, SyncPrepare& m) {
  m.session = r.u32("session");
  m.remove = r.str_list("remove");
  m.make_dirs = r.str("make_dirs");
}
void read(WireReader& r, SyncFile& m) {
  m.session = r.u32("session");
  m.file = r.u32("file");
  m.path = r.str("path");
  m.size = r.u64("size");
  m.mode = r.u32("mode");
  m.mtime_ns = r.i64("mtime_ns");
  m.hash = r.u64("hash");
}
void read(WireReader& r, SyncData& m) {
  m.session = r.u32("session");
  m.file = r.u32("file");
  uint8_t codec = r.u8("codec");
  if (r.ok() && codec > 1) r.fail(fmt::format("codec {} is neither 0 nor 1", codec));
  m.codec = static_cast<SyncCodec>(codec);
  m.raw_size = r.u32("raw_size");
  m.bytes = r.str("bytes");
}
void read(WireReader& r, SyncCommit& m) {
  m.session = r.u32("session");
  m.links = r.str("links");
  m.touch = r.str("touch");
  m.dir_meta = r.str("dir_meta");
}
void read(WireReader& r, Relayed& m) {
  m.hop = r.u32("hop");
  m.frame = r.str("frame");
}
void read(WireReader& r, RelayOpen& m) {
  m.destinations = r.str_list("destinations");
  m.names = r.str_list("names");
  m.connect_timeout_s = r.u32("connect_timeout_s");
  if (r.ok() && m.names.size() != m.destinations.size()) r.fail("names and destinations differ in number");
}
void read(WireReader& r, Relay& m) {
  m.hops = r.str("hops");
  m.frame = r.str("frame");
}
void read(WireReader&, Shutdown&) {}
void read(WireReader& r, HeadHeartbeat& m) {
  m.seq = r.u64("seq");
  m.unix_ms = r.i64("unix_ms");
}

// --- type bytes

constexpr Type type_byte(const Hello&) {
  return Type::hello;
}
constexpr Type type_byte(const WorkerStarted&) {
  return Type::worker_started;
}
constexpr Type type_byte(const Output&) {
  return Type::output;
}
constexpr Type type_byte(const WorkerExited&) {
  return Type::worker_exited;
}
constexpr Type type_byte(const Heartbeat&) {
  return Type::heartbeat;
}
constexpr Type type_byte(const PortReply&) {
  return Type::port_reply;
}
constexpr Type type_byte(const AgentError&) {
  return Type::agent_error;
}
constexpr Type type_byte(const SpawnWorker&) {
  return Type::spawn_worker;
}
constexpr Type type_byte(const Signal&) {
  return Type::signal;
}
constexpr Type type_byte(const Terminate&) {
  return Type::terminate;
}
constexpr Type type_byte(const Ping&) {
  return Type::ping;
}
constexpr Type type_byte(const PickPort&) {
  return Type::pick_port;
}
constexpr Type type_byte(const Shutdown&) {
  return Type::shutdown;
}
constexpr Type type_byte(const HeadHeartbeat&) {
  return Type::head_heartbeat;
}
constexpr Type type_byte(const SyncManifest&) {
  return Type::sync_manifest;
}
constexpr Type type_byte(const SyncAck&) {
  return Type::sync_ack;
}
constexpr Type type_byte(const SyncStepDone&) {
  return Type::sync_step_done;
}
constexpr Type type_byte(const SyncOpen&) {
  return Type::sync_open;
}
constexpr Type type_byte(const SyncPrepare&) {
  return Type::sync_prepare;
}
constexpr Type type_byte(const SyncFile&) {
  return Type::sync_file;
}
constexpr Type type_byte(const SyncData&) {
  return Type::sync_data;
}
constexpr Type type_byte(const SyncCommit&) {
  return Type::sync_commit;
}
constexpr Type type_byte(const Relayed&) {
  return Type::relayed;
}
constexpr Type type_byte(const RelayOpen&) {
  return Type::relay_open;
}
constexpr Type type_byte(const Relay&) {
  return Type::relay;
}

template <typename Message>
std::string encode_frame(const Message& message) {
  std::string frame(4, '\0');  // length, patched below
  WireWriter w(frame);
  w.u8(static_cast<uint8_t>(type_byte(message)));
  write(w, message);
  size_t length = frame.size() - 4;
  assert(length <= kMaxFrame && "message too large for one frame");
  std::string header;
  WireWriter(header).u32(static_cast<uint32_t>(length));
  frame.replace(0, 4, header);
  return frame;
}

template <typename Message, typename Variant>
Result<std::optional<Variant>> decode_as(std::string_view payload) {
  WireReader r(payload);
  Message message;
  read(r, message);
  if (!r.ok()) {
    Type type = type_byte(message);
    return make_error(ErrorKind::protocol, "malformed {} frame (type {}, {} byte payload): {}",
                      type_name(type), static_cast<int>(type), payload.size(), r.failure());
  }
  return std::optional<Variant>(std::move(message));
}

}  // namespace

std::string encode(const AgentMessage& message) {
  return std::visit([](const auto& m) { return encode_frame(m); }, message);
}

std::string encode(const HeadMessage& message) {
  return std::visit([](const auto& m) { return encode_frame(m); }, message);
}

Result<std::optional<AgentMessage>> decode_agent(uint8_t type, std::string_view payload) {
  using V = AgentMessage;
  switch (static_cast<Type>(type)) {
    case Type::hello:
      return decode_as<Hello, V>(payload);
    case Type::worker_started:
      return decode_as<WorkerStarted, V>(payload);
    case Type::output:
      return decode_as<Output, V>(payload);
    case Type::worker_exited:
      return decode_as<WorkerExited, V>(payload);
    case Type::heartbeat:
      return decode_as<Heartbeat, V>(payload);
    case Type::port_reply:
      return decode_as<PortReply, V>(payload);
    case Type::agent_error:
      return decode_as<AgentError, V>(payload);
    case Type::sync_manifest:
      return decode_as<SyncManifest, V>(payload);
    case Type::sync_ack:
      return decode_as<SyncAck, V>(payload);
    case Type::sync_step_done:
      return decode_as<SyncStepDone, V>(payload);
    case Type::relayed:
      return decode_as<Relayed, V>(payload);
    default:
      return std::optional<V>();
  }
}

Result<std::optional<HeadMessage>> decode_head(uint8_t type, std::string_view payload) {
  using V = HeadMessage;
  switch (static_cast<Type>(type)) {
    case Type::spawn_worker:
      return decode_as<SpawnWorker, V>(payload);
    case Type::signal:
      return decode_as<Signal, V>(payload);
    case Type::terminate:
      return decode_as<Terminate, V>(payload);
    case Type::ping:
      return decode_as<Ping, V>(payload);
    case Type::pick_port:
      return decode_as<PickPort, V>(payload);
    case Type::shutdown:
      return decode_as<Shutdown, V>(payload);
    case Type::head_heartbeat:
      return decode_as<HeadHeartbeat, V>(payload);
    case Type::sync_open:
      return decode_as<SyncOpen, V>(payload);
    case Type::sync_prepare:
      return decode_as<SyncPrepare, V>(payload);
    case Type::sync_file:
      return decode_as<SyncFile, V>(payload);
    case Type::sync_data:
      return decode_as<SyncData, V>(payload);
    case Type::sync_commit:
      return decode_as<SyncCommit, V>(payload);
    case Type::relay_open:
      return decode_as<RelayOpen, V>(payload);
    case Type::relay:
      return decode_as<Relay, V>(payload);
    default:
      return std::optional<V>();
  }
}

namespace {

// Checks the framing of a nested frame; on success `type` and `payload` are its parts.
Result<void> split_frame(std::string_view frame, uint8_t& type, std::string_view& payload) {
  if (frame.size() < 5) return make_error(ErrorKind::protocol, "nested frame of {} bytes is too short", frame.size());
  WireReader r(frame.substr(0, 4));
  uint32_t length = r.u32("length");
  if (length != frame.size() - 4) {
    return make_error(ErrorKind::protocol, "nested frame says {} bytes but holds {}", length, frame.size() - 4);
  }
  type = static_cast<uint8_t>(frame[4]);
  payload = frame.substr(5);
  return {};
}

}  // namespace

Result<std::optional<AgentMessage>> decode_agent_frame(std::string_view frame) {
  uint8_t type = 0;
  std::string_view payload;
  if (auto split = split_frame(frame, type, payload); !split) return split.error();
  return decode_agent(type, payload);
}

Result<RelayView> decode_relay(std::string_view payload) {
  WireReader r(payload);
  RelayView view;
  view.hops = r.str_view("hops");
  view.frame = r.str_view("frame");
  if (!r.ok()) {
    return make_error(ErrorKind::protocol, "malformed Relay frame (type {}, {} byte payload): {}",
                      static_cast<int>(Type::relay), payload.size(), r.failure());
  }
  return view;
}

std::string encode_relay_header(std::string_view hops, size_t frame_size) {
  size_t length = 1 + 4 + hops.size() + 4 + frame_size;
  assert(length <= kMaxFrame && "message too large for one frame");
  std::string header;
  WireWriter w(header);
  w.u32(static_cast<uint32_t>(length));
  w.u8(static_cast<uint8_t>(Type::relay));
  w.str(hops);
  w.u32(static_cast<uint32_t>(frame_size));
  return header;
}

Result<std::optional<HeadMessage>> decode_head_frame(std::string_view frame) {
  uint8_t type = 0;
  std::string_view payload;
  if (auto split = split_frame(frame, type, payload); !split) return split.error();
  return decode_head(type, payload);
}

Type type_of(const AgentMessage& message) {
  return std::visit([](const auto& m) { return type_byte(m); }, message);
}

Type type_of(const HeadMessage& message) {
  return std::visit([](const auto& m) { return type_byte(m); }, message);
}

const char* type_name(Type type) {
  switch (type) {
    case Type::hello:
      return "Hello";
    case Type::worker_started:
      return "WorkerStarted";
    case Type::output:
      return "Output";
    case Type::worker_exited:
      return "WorkerExited";
    case Type::heartbeat:
      return "Heartbeat";
    case Type::port_reply:
      return "PortReply";
    case Type::agent_error:
      return "AgentError";
    case Type::spawn_worker:
      return "SpawnWorker";
    case Type::signal:
      return "Signal";
    case Type::terminate:
      return "Terminate";
    case Type::ping:
      return "Ping";
    case Type::pick_port:
      return "PickPort";
    case Type::shutdown:
      return "Shutdown";
    case Type::head_heartbeat:
      return "HeadHeartbeat";
    case Type::sync_manifest:
      return "SyncManifest";
    case Type::sync_ack:
      return "SyncAck";
    case Type::sync_step_done:
      return "SyncStepDone";
    case Type::sync_open:
      return "SyncOpen";
    case Type::sync_prepare:
      return "SyncPrepare";
    case Type::sync_file:
      return "SyncFile";
    case Type::sync_data:
      return "SyncData";
    case Type::sync_commit:
      return "SyncCommit";
    case Type::relayed:
      return "Relayed";
    case Type::relay_open:
      return "RelayOpen";
    case Type::relay:
      return "Relay";
  }
  return "unknown";
}

}  // namespace muster::protocol
