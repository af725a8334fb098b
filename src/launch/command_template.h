// Per-node mode's command template: the user's own launcher command (torchrun, deepspeed, accelerate launch),
// run once per node with that node's values put into it, e.g.
//   muster launch --per-node -- torchrun --nnodes {nnodes} --node-rank {node_rank}
//       --master-addr {master_addr} --master-port {master_port} --nproc-per-node {nproc_per_node} train.py
// Substitution is per argv element, never through a shell: a value cannot split an argument or inject shell
// syntax, and the rest of every element is passed on byte for byte. Pure.
//
// The rule, chosen so that code in arguments (`python -c "d={'a': {}}"`, f-strings, `${HOME}`, JSON,
// `{a,b}` brace lists) always passes through untouched:
//   - `{name}` is a placeholder only when `name` is exactly one of placeholder_names(); it becomes the value;
//   - `{{name}}` with such a name is the escape: it becomes the literal text `{name}`
//     (e.g. for a Python f-string that wants its own variable called node_rank);
//   - every other brace, `{{` and `}}` included, is an ordinary character.
// So there is no "unknown placeholder" error: `{nodes}` may be legitimate code. A `{word}` that looks like a
// mistyped placeholder is reported by check_command_template as a warning instead.
// The same values are in the environment of the per-node process too (NODE_RANK, NNODES, MASTER_ADDR,
// MASTER_PORT: rank_env.h), for commands that are a shell script: `bash -c 'torchrun --node-rank
// $NODE_RANK'`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/rank_plan.h"
#include "launch/rank_env.h"

namespace muster::launch {

// node_rank nnodes master_addr master_port nproc_per_node world_size job_id
const std::vector<std::string_view>& placeholder_names();

struct TemplateValues {
  int node_rank = 0;
  int nnodes = 0;
  std::string master_addr;
  int master_port = 0;
  int nproc_per_node = 0;  // this node's worker count (the plan's local world size; nodes may differ)
  int world_size = 0;
  std::string job_id;
};

TemplateValues template_values(const cluster::RankPlan& plan, const cluster::NodePlan& node,
                               const JobInfo& job);

std::string expand_placeholders(std::string_view arg, const TemplateValues& values);
std::vector<std::string> expand_command(const std::vector<std::string>& argv, const TemplateValues& values);

// Warnings (one per suspicious `{word}`) for a template, to print once before launching: a `{word}` that is
// not a placeholder but is one in another case or with '-' for '_' ({NODE_RANK}, {node-rank}) or within
// typo distance ({node_rnak}, {nodes}). It still passes through unchanged; the warning says how to write
// the placeholder and the escape.
std::vector<std::string> check_command_template(const std::vector<std::string>& argv);

}  // namespace muster::launch
