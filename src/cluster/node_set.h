// Folded sets of nodes and ranks, as clush and Slurm print them: `node[1-3,5]` for four nodes, `0-2,4-5` for
// five ranks. What every summary muster prints uses when it names many nodes or ranks at once (exec's groups, the
// exit table, doctor, why, stack), so 64 nodes fit a line and the odd one stands out. Pure.
//
// Unlike compress_hostlist (hostlist.h), which keeps the order it is given (node order is rank order), a set is
// sorted first, the way clush's NodeSet sorts: by the name with its last number taken out (`node%s`), then by
// that number; names without a number sort by themselves. Duplicates count once.
#pragma once

#include <string>
#include <vector>

namespace muster::cluster {

// `names` in set order (see above), each once.
std::vector<std::string> sorted_node_set(std::vector<std::string> names);

// `node[1-3,5]`: the sorted set, folded (compress_hostlist of sorted_node_set). Empty for no names.
std::string fold_nodes(const std::vector<std::string>& names);

// `node[1-3,5] (4)`, or `node5` for one node: clush's header with its node count.
std::string counted_nodes(const std::vector<std::string>& names);

// `0-2,4-5`: the numbers sorted, each once, consecutive ones as a range.
std::string fold_numbers(std::vector<int> numbers);

}  // namespace muster::cluster
