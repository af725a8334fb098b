// The parsed form of a pdsh/Slurm hostlist expression, before expansion: a list of items, each a sequence of
// literal text and bracket groups (`rack[1-2]-gpu[01-04]` is "rack", [1-2], "-gpu", [01-04]). Kept apart
// from expansion so the size of an expansion can be known, and refused, before any name is built.
// Internal to hostlist.cc; the public interface is hostlist.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::cluster {

// `low-high` (or a single number: low == high), printed zero-padded to `width` digits, the width of `low`
// as written (Slurm's rule: `[08-10]` is 08, 09, 10).
struct NumberRange {
  int64_t low = 0;
  int64_t high = 0;
  size_t width = 1;
};

// Literal text, or a bracket group when `ranges` is not empty.
struct PatternPiece {
  std::string literal;
  std::vector<NumberRange> ranges;
};

struct HostPattern {
  bool exclude = false;  // written with a leading '-': remove these names from the result
  size_t offset = 0;     // where the pattern starts in the expression, for errors
  std::vector<PatternPiece> pieces;
};

// Checks syntax, ranges, and that the names the patterns make are valid destinations (`[user@]host`).
// Errors name the expression as `what "expr", column N: ...`.
Result<std::vector<HostPattern>> parse_hostlist_patterns(std::string_view expr, std::string_view what);

// How many names `pattern` expands to, or `limit + 1` if more than `limit`.
uint64_t count_pattern_names(const HostPattern& pattern, uint64_t limit);

// Appends the names of `pattern` to `names`, first bracket group varying slowest.
void expand_pattern(const HostPattern& pattern, std::vector<std::string>& names);

}  // namespace muster::cluster
