// The table of `muster node <op>`: every node operation (head/node_op.h) of every feature, and how the node parses
// one with CLI11 from the fields the op declares, the same fields the head built its command line from.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

#include "doctor/bandwidth/probe.h"
#include "doctor/gpu/gpu_op.h"
#include "doctor/node/node_ops.h"
#include "image/node_image.h"
#include "launch/node_caches.h"
#include "setup/node_ops.h"

namespace muster::cli {

using NodeOps = std::tuple<setup::HostsBlockOp, setup::AddLinesOp, setup::SshIdentityOp, doctor::FactsOp,
                           doctor::CrossOp, doctor::BandwidthProbeOp, doctor::GpuOp, launch::CacheDirOp,
                           image::NodeImageOp>;

// Binds each field of an op to an option of its subcommand: a bool to a flag, a name without `--` to the
// positional rest, the others to options (a list: repeatable).
struct NodeOpBinder {
  CLI::App* app;
  template <typename T>
  void operator()(T& value, const char* name, const char* help) {
    if constexpr (std::is_same_v<T, bool>) {
      app->add_flag(name, value, help);
    } else if constexpr (std::is_arithmetic_v<T>) {
      app->add_option(name, value, help)->capture_default_str();
    } else {
      app->add_option(name, value, help);
    }
  }
};

// `app`'s subcommand for `op` (its name and help), bound to op's fields.
template <typename Op>
CLI::App* add_node_op(CLI::App& app, Op& op) {
  CLI::App* sub = app.add_subcommand(Op::kName, Op::kHelp);
  NodeOpBinder binder{sub};
  Op::fields(op, binder);
  return sub;
}

// `muster node`'s app with every op of the table bound to `ops`.
std::unique_ptr<CLI::App> make_node_app(NodeOps& ops);

// The op of type Op that `args` (what follows `muster node`) names, parsed as `muster node` parses it; nullopt
// when they name another op or do not parse. For the round-trip tests.
template <typename Op>
std::optional<Op> parse_node_op(const std::vector<std::string>& args) {
  NodeOps ops;
  auto app = make_node_app(ops);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app->parse(reversed);
  } catch (const CLI::ParseError&) {
    return std::nullopt;
  }
  if (!app->got_subcommand(Op::kName)) return std::nullopt;
  return std::get<Op>(ops);
}

}  // namespace muster::cli
