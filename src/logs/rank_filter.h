// Which ranks the terminal shows: the value of --ranks. "all", or a comma-separated list of ranks and
// inclusive ranges: "0", "0,2-3", "0-3,8". Only the terminal is filtered; rank logs keep every rank.
// A plain value; parse() rejects malformed input with a usage error that quotes the bad token.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::logs {

class RankFilter {
 public:
  RankFilter() = default;  // all ranks

  static Result<RankFilter> parse(std::string_view spec);
  // No rank at all (a view of muster's own notices only: the log of a detached head).
  static RankFilter none();

  bool contains(int rank) const;
  bool operator()(int rank) const { return contains(rank); }
  bool is_all() const { return all_; }

  // Fails when a listed rank does not exist (>= world_size), naming the token that asked for it.
  Result<void> check_world_size(int world_size) const;

 private:
  struct Range {
    int first = 0;
    int last = 0;
    std::string token;  // as the user wrote it, for error messages
  };

  bool all_ = true;
  std::vector<Range> ranges_;
};

}  // namespace muster::logs
