// parse_tasks_per_node on arbitrary text. Invariants: a bounded list of counts from 1 up, which written back
// in Slurm's `N(xR)` form parses to the same list and pairs node for node with a nodelist of that length.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/hostfile.h"
#include "cluster/hostlist.h"
#include "cluster/slurm_env.h"
#include "fuzz_check.h"

using namespace muster;
using namespace muster::cluster;

namespace {

// The form Slurm itself writes: runs of equal counts as `N(xR)`.
std::string slurm_form(const std::vector<int>& counts) {
  std::string text;
  for (size_t i = 0; i < counts.size();) {
    size_t end = i;
    while (end < counts.size() && counts[end] == counts[i]) ++end;
    if (!text.empty()) text += ',';
    text += std::to_string(counts[i]);
    if (end - i > 1) text += "(x" + std::to_string(end - i) + ")";
    i = end;
  }
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto counts = parse_tasks_per_node(text);
  if (!counts) {
    FUZZ_CHECK(counts.error().message.starts_with("SLURM_TASKS_PER_NODE \""));
    return 0;
  }
  FUZZ_CHECK(!counts->empty() && counts->size() <= kMaxHostlistNames);
  for (int count : *counts) FUZZ_CHECK(count >= 1 && count <= kMaxSlotsPerHost);
  auto again = parse_tasks_per_node(slurm_form(*counts));
  FUZZ_CHECK(again.has_value() && *again == *counts);
  auto hosts = hosts_from_slurm("n[1-" + std::to_string(counts->size()) + "]", text);
  FUZZ_CHECK(hosts.has_value() && hosts->size() == counts->size());
  for (size_t i = 0; i < hosts->size(); ++i) FUZZ_CHECK((*hosts)[i].slots == (*counts)[i]);
  return 0;
}
