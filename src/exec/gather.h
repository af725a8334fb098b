// `muster exec -b` and `--diff`: the nodes' outputs gathered into groups of identical output, as clush -b
// gathers them, and what the end of every exec prints. Pure.
//
// A group is the nodes whose command ran and printed the same stdout with the same exit status (clush keeps
// nodes with different exit codes apart too); nodes that printed nothing are in no group. Groups come largest
// first, then by their first node in set order (cluster/node_set.h). Each is printed under clush's header:
//
//   ---------------
//   node[1-3,5] (4)
//   ---------------
//   <output>
//
// --diff prints each group's difference from the most common output (the largest group) as a unified diff,
// headed `--- node[1-60] (60)` / `+++ node61`; nodes that ran and printed nothing count as an empty output there.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/outcome.h"

namespace muster::exec {

struct OutputGroup {
  std::vector<std::string> nodes;  // in set order
  std::string output;              // their stdout
  int status = 0;                  // their exit status
};

// Groups of identical output; `with_empty` also gathers the nodes that ran and printed nothing (for --diff).
std::vector<OutputGroup> gather_outputs(const std::vector<NodeOutcome>& outcomes, bool with_empty = false);

// The groups, each under its header (clush -b).
std::string format_gathered(const std::vector<OutputGroup>& groups);

// The largest group's output in full (under its header), then every other group as a diff from it.
std::string format_diffs(const std::vector<OutputGroup>& groups);

// The nodes that failed, could not be reached, timed out or were stopped, folded by what happened to them, one
// line each: "node[3,7] (2): exit code 1". Empty when every node's command exited 0.
std::vector<std::string> failure_lines(const std::vector<NodeOutcome>& outcomes, double timeout_s);

// --json: {"exit_code", "nodes": [{node, ending, exit_status, code, stdout, stderr, reason}],
//          "groups": [{nodes (folded), count, exit_status, stdout}]}
nlohmann::json outcomes_json(const std::vector<NodeOutcome>& outcomes);

}  // namespace muster::exec
