// The syntax of DeepSpeed's --include/--exclude filters, `node1:0,1@node2`: hosts separated by '@', each
// alone (every slot) or followed by ':' and slot indices separated by ','. Only the syntax: whether the hosts
// and slots exist is for select_slots (slot_filter.h) to say.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::cluster {

struct SlotFilterEntry {
  std::string host;
  std::vector<int> slots;            // empty = every slot of the host
  size_t offset = 0;                 // where the host starts in the filter text
  std::vector<size_t> slot_offsets;  // where each of `slots` starts
};

// A parsed filter, with the flag and text it came from (views: they must outlive it) for later errors.
struct SlotFilter {
  std::string_view flag;
  std::string_view text;
  std::vector<SlotFilterEntry> entries;

  Error error_at(size_t offset, std::string_view message) const;
};

// `flag` names the filter in errors: `--include "node1:x", column 7: expected a slot index, found 'x'`.
Result<SlotFilter> parse_slot_filter(std::string_view text, std::string_view flag);

}  // namespace muster::cluster
