// The requests a running job's control socket takes (docs/control-protocol.md), as types: each lists its fields
// once (as protocol/messages.h does for frames), and encode/decode are the only places that know the JSON. The
// head serves them (launch/launch_control.h: one handler per request); `muster stack`, `attach`, `stop`, `ps`
// and `top` send them (src/jobs).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace muster::head {

// {"op": "stack"}: every rank's stack, answered once collected (JobStackReply).
struct StackRequest {
  static constexpr const char* kOp = "stack";
};
// {"op": "attach"}: the live view (launch/attach_hub.h): a hello line, then events until the job ends.
struct AttachRequest {
  static constexpr const char* kOp = "attach";
};
// {"op": "stop", "kill": bool}: the Ctrl-C path (a second stop, or kill: SIGKILL at once).
struct StopRequest {
  static constexpr const char* kOp = "stop";
  bool kill = false;
};
// {"op": "status"}: the job's state (StatusReply).
struct StatusRequest {
  static constexpr const char* kOp = "status";
};
// {"op": "top", "ranks": "all" | "none" | ["node3", ...]}: the job's telemetry now (launch/telemetry_hub.h), every
// node with the ranks of the nodes named (or of all); the reply is the snapshot with "ok" (docs/control-protocol.md).
struct TopRequest {
  static constexpr const char* kOp = "top";
  bool all_ranks = false;
  std::vector<std::string> expand;
};
using ControlCall = std::variant<StackRequest, AttachRequest, StopRequest, StatusRequest, TopRequest>;

nlohmann::json encode_call(const ControlCall& call);
// An error (for the reply) when the op is unknown or a field has the wrong type.
Result<ControlCall> decode_call(const nlohmann::json& body);
const char* op_name(const ControlCall& call);

// Replies carry "ok"; a refusal is {"ok": false, "error": text}.
nlohmann::json error_reply(const std::string& message);

struct StatusReply {
  std::string job_id;
  std::string run_dir;
  int attempt = 0;          // the running (or last) attempt, 0 for the first
  int ranks = 0;            // its world size
  bool running = false;     // its ranks run and are not being stopped
  std::string nodes;        // its nodes, folded ("node[1-4]")
  std::string excluded;     // nodes left out of the job, folded, with their reasons ("node3: no heartbeat ...")
  std::string spares;       // usable nodes in reserve, folded
};
nlohmann::json encode_reply(const StatusReply& reply);
StatusReply decode_status(const nlohmann::json& body);

struct StopReply {
  bool killing = false;  // SIGKILL at once (a second stop, or kill)
  double grace_s = 0;    // else: SIGKILL after this
};
nlohmann::json encode_reply(const StopReply& reply);

struct StackReply {
  std::string summary;  // grouped stacks (diagnosis/stack_groups.h)
  std::string file;     // where all of them were saved, or why not
  std::string stacks;   // every rank's stack
};
nlohmann::json encode_reply(const StackReply& reply);

}  // namespace muster::head
