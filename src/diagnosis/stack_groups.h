// Every rank's stack, grouped: ranks whose main threads stand at the same place form one group, and the groups
// that hold fewer ranks than the largest are the odd ones out — in a hang, usually the rank that stopped
// (`rank 3 on node2: stuck_in_data_loader (train.py:14)`) while the others wait in a collective
// (`ranks 0-2,4-5 (5) on node[1,3] (2): all_reduce ← train_step (train.py:42)`). Pure: what `muster stack` and
// stall detection print and save.
#pragma once

#include <string>
#include <vector>

#include "diagnosis/stack_dump.h"

namespace muster::diagnosis {

struct RankStack {
  int rank = 0;
  std::string node;
  StackDump dump;
  std::string note;  // why there is no stack, or how it was taken ("native: eu-stack")
};

struct StackGroup {
  std::vector<int> ranks;  // ascending
  std::vector<std::string> nodes;  // the nodes of those ranks, each once, in rank order
  std::string where;       // describe_thread of the group's main thread, or the note for ranks without a stack
  bool has_stack = true;
  bool odd = false;        // fewer ranks than the largest group (and more than one group)
};

// Groups sorted largest first (ties: lowest rank first); ranks without a stack form their own groups.
std::vector<StackGroup> group_stacks(const std::vector<RankStack>& stacks);

// The summary lines (no trailing newline on the last): one line per group, its ranks and nodes folded
// (cluster/node_set.h).
//   ranks 0-2,4-5 (5) on node[1,3] (2): all_reduce ← train_step (train.py:42)
//   rank 3 on node2: stuck_in_data_loader (train.py:14)   ← the odd one out
std::string format_stack_summary(const std::vector<StackGroup>& groups);

// Every rank's full dump, rank by rank, for the run directory.
std::string format_full_stacks(const std::vector<RankStack>& stacks);

}  // namespace muster::diagnosis
