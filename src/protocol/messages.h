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

using AgentMessage =
    std::variant<Hello, WorkerStarted, Output, WorkerExited, Heartbeat, PortReply, AgentError>;
using HeadMessage = std::variant<SpawnWorker, Signal, Terminate, Ping, PickPort, Shutdown, HeadHeartbeat>;

// Wire type bytes (section 4).
enum class Type : uint8_t {
  hello = 1,
  worker_started = 2,
  output = 3,
  worker_exited = 4,
  heartbeat = 5,
  port_reply = 6,
  agent_error = 7,
  spawn_worker = 64,
  signal = 65,
  terminate = 66,
  ping = 67,
  pick_port = 68,
  shutdown = 69,
  head_heartbeat = 70,
};

}  // namespace muster::protocol
