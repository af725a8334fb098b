// `muster node <op>`: hidden; what the head's features run on every node, one op each (the table in
// cli/node_ops.h): setup's file edits and key, doctor's facts, cross-node checks and bandwidth probes, launch's
// node-local cache directory and image push's image id and load. Each op declares its flags and what runs it
// next to its feature (head/node_op.h); the head builds its command lines from the same declaration.
#include <tuple>
#include <type_traits>

#include "cli/exit_codes.h"
#include "cli/node_ops.h"
#include "cli/parse.h"
#include "cli/subcommands.h"

namespace muster::cli {

std::unique_ptr<CLI::App> make_node_app(NodeOps& ops) {
  auto app = make_app("node", "Internal: node-side operations of `muster setup`, `doctor`, `launch` "
                              "(--node-local-caches) and `image push`.");
  app->require_subcommand(1);
  std::apply([&](auto&... op) { (add_node_op(*app, op), ...); }, ops);
  return app;
}

int run_node(const std::vector<std::string>& args) {
  NodeOps ops;
  auto app = make_node_app(ops);
  if (auto code = parse_command_line(*app, args)) return *code;
  int code = kExitUsage;
  auto run = [&](const auto& op) {
    using Op = std::decay_t<decltype(op)>;
    if (!app->got_subcommand(Op::kName)) return;
    auto result = Op::run(op);
    code = result ? *result : report_error(result.error());
  };
  std::apply([&](const auto&... op) { (run(op), ...); }, ops);
  return code;
}

}  // namespace muster::cli
