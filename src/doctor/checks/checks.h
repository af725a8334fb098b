// The head's half of `muster doctor`: compares the NodeFacts of every node (gathered by `muster node facts`,
// node/node_facts.h) and says, per node, what is wrong and exactly how to fix it. Pure: no I/O, no clock; the
// caller gathers the facts and prints the findings (checks/report.h).
//
// Unknown facts (an empty string, -1/-2 sentinels, a node that left a field out) are skipped, never reported
// as differences: a check only speaks about what the nodes told it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "doctor/node/node_facts.h"
#include "util/finding.h"

namespace muster::doctor {

struct CheckOptions {
  int slots_per_node = -1;  // ranks the job will start per node; -1 unknown
  // Paths whose content must be identical on every node (the code). Empty: every path in the facts is.
  std::vector<std::string> code_paths;
  int64_t max_clock_skew_ms = 1000;
  int64_t min_shm_bytes = int64_t{1} << 30;       // 1 GiB
  int64_t min_memlock_bytes = int64_t{64} << 20;  // NCCL/IB pin memory: unlimited or at least 64 MiB
  std::size_t master = 0;                         // index of the node that hosts MASTER_ADDR
  // Optional, one per node: how many ms after the head's reference instant node i read its clock (measured by
  // the head, e.g. half the round trip plus queueing). clock_unix_ms - offset is compared. Empty: not
  // measured.
  std::vector<int64_t> clock_offsets_ms;
};

// `names` are the nodes as the user wrote them; facts[i] belongs to names[i]. Findings come grouped by check
// in a fixed order (hostnames, resolution, loopback, containers, versions, paths, network, infiniband, shm, memlock,
// gpus, clock).
std::vector<Finding> run_checks(const std::vector<std::string>& names, const std::vector<NodeFacts>& facts,
                                const CheckOptions& options);

}  // namespace muster::doctor
