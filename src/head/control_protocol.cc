#include "head/control_protocol.h"

#include <optional>

#include <fmt/core.h>

namespace muster::head {

nlohmann::json encode_call(const ControlCall& call) {
  nlohmann::json body{{"op", op_name(call)}};
  if (auto* stop = std::get_if<StopRequest>(&call)) body["kill"] = stop->kill;
  if (auto* top = std::get_if<TopRequest>(&call)) {
    body["ranks"] = top->all_ranks ? nlohmann::json("all") : nlohmann::json(top->expand);
  }
  return body;
}

const char* op_name(const ControlCall& call) {
  return std::visit([](const auto& request) { return std::decay_t<decltype(request)>::kOp; }, call);
}

namespace {

// Each request type by its op, default-constructed: the table decode_call looks ops up in.
template <typename... Calls>
std::optional<ControlCall> by_op(std::variant<Calls...>*, const std::string& op) {
  std::optional<ControlCall> found;
  ((op == Calls::kOp ? (void)(found = Calls{}) : (void)0), ...);
  return found;
}

}  // namespace

Result<ControlCall> decode_call(const nlohmann::json& body) {
  if (!body.is_object()) return make_error(ErrorKind::protocol, "a request is a JSON object");
  auto op = body.find("op");
  if (op == body.end() || !op->is_string()) return make_error(ErrorKind::protocol, "a request names its \"op\"");
  auto call = by_op(static_cast<ControlCall*>(nullptr), op->get<std::string>());
  if (!call) return make_error(ErrorKind::protocol, "unknown op '{}'", op->get<std::string>());
  if (auto* stop = std::get_if<StopRequest>(&*call)) {
    auto kill = body.find("kill");
    if (kill != body.end() && !kill->is_boolean()) return make_error(ErrorKind::protocol, "\"kill\" is true or false");
    stop->kill = kill != body.end() && kill->get<bool>();
  }
  if (auto* top = std::get_if<TopRequest>(&*call)) {
    auto ranks = body.find("ranks");
    if (ranks == body.end() || (ranks->is_string() && *ranks == "none")) return *call;
    if (ranks->is_string() && *ranks == "all") {
      top->all_ranks = true;
      return *call;
    }
    if (!ranks->is_array()) return make_error(ErrorKind::protocol, "\"ranks\" is \"all\", \"none\" or a list of nodes");
    for (const auto& node : *ranks) {
      if (!node.is_string()) return make_error(ErrorKind::protocol, "\"ranks\" lists node names");
      top->expand.push_back(node.get<std::string>());
    }
  }
  return *call;
}

nlohmann::json error_reply(const std::string& message) { return {{"ok", false}, {"error", message}}; }

nlohmann::json encode_reply(const StatusReply& reply) {
  return {{"ok", true},           {"job_id", reply.job_id},   {"run_dir", reply.run_dir},
          {"attempt", reply.attempt}, {"ranks", reply.ranks}, {"running", reply.running},
          {"nodes", reply.nodes},     {"excluded", reply.excluded}, {"spares", reply.spares}};
}

StatusReply decode_status(const nlohmann::json& body) {
  StatusReply reply;
  reply.job_id = body.value("job_id", "");
  reply.run_dir = body.value("run_dir", "");
  reply.attempt = body.value("attempt", 0);
  reply.ranks = body.value("ranks", 0);
  reply.running = body.value("running", false);
  reply.nodes = body.value("nodes", "");
  reply.excluded = body.value("excluded", "");
  reply.spares = body.value("spares", "");
  return reply;
}

nlohmann::json encode_reply(const StopReply& reply) {
  return {{"ok", true}, {"killing", reply.killing}, {"grace_s", reply.grace_s}};
}

nlohmann::json encode_reply(const StackReply& reply) {
  return {{"ok", true}, {"summary", reply.summary}, {"file", reply.file}, {"stacks", reply.stacks}};
}

}  // namespace muster::head
