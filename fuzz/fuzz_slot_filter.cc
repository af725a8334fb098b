// select_slots with an arbitrary --include or --exclude filter over a fixed set of hosts. The first four
// bytes pick include/exclude, num_nodes, nproc_per_node and default_slots (zero is in range, to reach the
// refusals); the rest is the filter. Invariants: the selection is non-empty, in host order, each node's slots
// ascending, distinct and on the host, counts honoured; the rank plan numbers it contiguously.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/rank_plan.h"
#include "cluster/slot_filter.h"
#include "fuzz_check.h"

using namespace muster;
using namespace muster::cluster;

namespace {

std::vector<Host> fixed_hosts() {
  return {Host{.name = "node1", .slots = 4}, Host{.name = "node2", .slots = 2}, Host{.name = "node3"},
          Host{.name = "gpu01", .slots = 1}, Host{.name = "node4", .user = "alice", .slots = 8}};
}

SlotSelection selection_from(const uint8_t* data, size_t size) {
  SlotSelection selection;
  std::string filter(reinterpret_cast<const char*>(data) + 4, size - 4);
  (data[0] & 1 ? selection.include : selection.exclude) = filter;
  selection.num_nodes = data[1] % 7 - 1;        // -1 .. 5
  selection.nproc_per_node = data[2] % 10 - 1;  // -1 .. 8
  selection.default_slots = data[3] % 4;        // 0 .. 3
  return selection;
}

// Each node is a later host than the one before, with ascending slots that host has.
void check_nodes(const std::vector<NodeSlots>& nodes, const std::vector<Host>& hosts, int default_slots) {
  size_t next_host = 0;
  for (const NodeSlots& node : nodes) {
    while (next_host < hosts.size() && hosts[next_host].name != node.host.name) ++next_host;
    FUZZ_CHECK(next_host < hosts.size());
    const Host& host = hosts[next_host++];
    FUZZ_CHECK(node.host == host);
    int available = host.slots == -1 ? default_slots : host.slots;
    FUZZ_CHECK(!node.slots.empty());
    for (size_t i = 0; i < node.slots.size(); ++i) {
      FUZZ_CHECK(node.slots[i] >= 0 && node.slots[i] < available);
      FUZZ_CHECK(i == 0 || node.slots[i] > node.slots[i - 1]);
    }
  }
}

void check_plan(const std::vector<NodeSlots>& nodes) {
  RankPlan plan = make_rank_plan(nodes);
  int next_rank = 0;
  for (const NodePlan& node : plan.nodes) {
    FUZZ_CHECK(node.first_global_rank == next_rank);
    for (const RankAssignment& rank : node.ranks) FUZZ_CHECK(rank.global_rank == next_rank++);
  }
  FUZZ_CHECK(plan.world_size == next_rank);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const SlotSelection selection = selection_from(data, size);
  const std::vector<Host> hosts = fixed_hosts();
  auto nodes = select_slots(hosts, selection);
  if (!nodes) {
    FUZZ_CHECK(!nodes.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(!nodes->empty());
  check_nodes(*nodes, hosts, selection.default_slots);
  if (selection.num_nodes != -1) FUZZ_CHECK(nodes->size() == static_cast<size_t>(selection.num_nodes));
  if (selection.nproc_per_node != -1) {
    for (const NodeSlots& node : *nodes)
      FUZZ_CHECK(node.slots.size() == static_cast<size_t>(selection.nproc_per_node));
  }
  check_plan(*nodes);
  return 0;
}
