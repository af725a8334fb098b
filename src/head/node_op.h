// One node operation: `muster node <name> ...`, what a feature runs on every node through its agent (doctor's
// facts, setup's file edits, image push's load, ...). Each operation is one small type in its feature's folder
// that says, once, its name, its flags and what runs it on the node:
//
//   struct CacheDirOp {
//     static constexpr const char* kName = "cache-dir";
//     static constexpr const char* kHelp = "make this node's private cache directory and print it";
//     std::string base;
//     template <typename Self, typename Visit>
//     static void fields(Self& op, Visit& visit) { visit(op.base, "--base", "the directory"); }
//     static int run(const CacheDirOp& op);  // on the node: prints its result, returns the exit code
//     bool operator==(const CacheDirOp&) const = default;
//   };
//
// The head builds the command line from a filled-in op (node_op_command); the node parses it with the same
// fields (cli/node_ops.h) into the same type, so the two sides cannot disagree on a flag. A field is given only
// when its value differs from the default-constructed op's, as `--flag=value` (a value may start with `-`). A
// field named without `--` is the positional rest, given after `--`. Field types: std::string, std::vector<std::string> (a repeated flag), bool (a flag without a
// value; its default must be false), int, double.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "head/node_runs.h"

namespace muster::head {

namespace node_op_detail {

// The texts of one field's value on the command line, in the order `fields` visits them.
struct FieldTexts {
  std::string name;
  bool flag = false;  // a bool: given as the name alone
  std::vector<std::string> values;
};

struct Collect {
  std::vector<FieldTexts> out;

  template <typename T>
  void operator()(const T& value, const char* name, const char* /*help*/) {
    FieldTexts field{name, false, {}};
    if constexpr (std::is_same_v<T, bool>) {
      field.flag = true;
      if (value) field.values.push_back("");
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      field.values = value;
    } else if constexpr (std::is_same_v<T, std::string>) {
      field.values.push_back(value);
    } else {
      static_assert(std::is_arithmetic_v<T>, "a node op field is a string, a list of strings, a bool or a number");
      field.values.push_back(fmt::format("{}", value));
    }
    out.push_back(std::move(field));
  }
};

}  // namespace node_op_detail

// The arguments after `muster node`: the op's name, then every field that differs from its default.
template <typename Op>
std::vector<std::string> node_op_args(const Op& op) {
  node_op_detail::Collect given, defaults;
  Op::fields(op, given);
  const Op fresh{};
  Op::fields(fresh, defaults);
  std::vector<std::string> args = {Op::kName};
  std::vector<std::string> rest;
  bool has_rest = false;
  for (size_t i = 0; i < given.out.size(); ++i) {
    const auto& field = given.out[i];
    if (field.name.rfind("--", 0) != 0) {
      has_rest = true;
      rest = field.values;
      continue;
    }
    if (field.values == defaults.out[i].values) continue;
    if (field.flag) {
      args.push_back(field.name);
      continue;
    }
    for (const auto& value : field.values) args.push_back(field.name + "=" + value);
  }
  if (has_rest && !rest.empty()) {
    args.push_back("--");
    args.insert(args.end(), rest.begin(), rest.end());
  }
  return args;
}

// The command that runs `op` on a node: the agent's own muster binary (kNodeMuster), with `env` on top of the
// node's environment.
template <typename Op>
NodeCommand node_op_command(const Op& op, std::vector<std::string> env = {}) {
  std::vector<std::string> argv = {kNodeMuster, "node"};
  for (auto& arg : node_op_args(op)) argv.push_back(std::move(arg));
  return NodeCommand{std::move(argv), std::move(env)};
}

}  // namespace muster::head
