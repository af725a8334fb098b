// Which slots (devices) of which hosts a run uses, with DeepSpeed's semantics for its runner flags:
//
//   include  "node1:0,1@node2"  only these: slots 0 and 1 of node1, every slot of node2
//   exclude  "node1:0@node3"    everything but these; a host left with no slot is dropped
//   num_nodes                   then keep the first N nodes (-1 = all)
//   nproc_per_node              then keep the first N slots of each node (-1 = all)
//
// Hosts keep their order (it is rank order); a host's slots are device indices 0..slots-1, and a host whose
// slot count is unspecified gets `default_slots`. Pure; every refusal names the host or filter at fault.
#pragma once

#include <string>
#include <vector>

#include "cluster/host.h"
#include "util/result.h"

namespace muster::cluster {

// A host chosen to run workers, and the device indices it runs them on, ascending (e.g. {0, 1, 3}).
struct NodeSlots {
  Host host{};
  std::vector<int> slots{};

  bool operator==(const NodeSlots&) const = default;
};

struct SlotSelection {
  std::string include{};    // DeepSpeed filter; empty = no filter
  std::string exclude{};    // DeepSpeed filter; mutually exclusive with include
  int num_nodes = -1;       // first N nodes after filtering; -1 = all
  int nproc_per_node = -1;  // first N slots of each node; -1 = all it has
  int default_slots = 1;    // slots of hosts that did not say (Host::slots == -1)
};

// The selected nodes, each with at least one slot; an error if nothing would be left to run on.
Result<std::vector<NodeSlots>> select_slots(const std::vector<Host>& hosts, const SlotSelection& selection);

}  // namespace muster::cluster
