// NodeRoster: which of the job's hosts an attempt may use (DESIGN.md "Attempts, exclusion and spares"). The
// hosts are every host the user listed, in host order; a job asks for `max` nodes (--nnodes N, or MIN:MAX) and
// the others are spares. A node is excluded for the job when a failure was its own — with its reason and a
// cooldown before it may come back (Horovod's blacklist) — and unavailable while its agent is not connected.
// An attempt takes the first `max` usable nodes in host order, so node ranks follow host order and a spare fills
// the place of an excluded node; fewer than `min` usable nodes stops the job. Pure: no clock, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace muster::launch {

struct Exclusion {
  std::string reason;  // "no heartbeat for 5 s", "XID 79 on GPU 3", ...
  int64_t until_ms = 0;  // cooldown: may come back from then on
  int attempt = 0;       // the attempt whose failure excluded it
};

class NodeRoster {
 public:
  NodeRoster(std::vector<std::string> names, int min_nodes, int max_nodes);

  size_t size() const { return names_.size(); }
  const std::string& name(size_t node) const { return names_[node]; }
  int min_nodes() const { return min_; }
  int max_nodes() const { return max_; }

  // The node's agent is (not) connected.
  void set_connected(size_t node, bool connected);
  bool connected(size_t node) const { return connected_[node]; }
  void exclude(size_t node, std::string reason, int64_t until_ms, int attempt);
  const std::optional<Exclusion>& exclusion(size_t node) const { return excluded_[node]; }
  // Exclusions whose cooldown is over by `now_ms` end; returns those nodes (the caller reconnects the ones whose
  // agent is gone).
  std::vector<size_t> expire(int64_t now_ms);
  bool usable(size_t node) const { return connected_[node] && !excluded_[node]; }

  // The nodes of the next attempt: the first max_nodes usable ones in host order; an error naming what is missing
  // when fewer than min_nodes are usable.
  Result<std::vector<size_t>> choose() const;
  // The nodes not chosen by `chosen` but usable: spares in reserve.
  std::vector<size_t> spares(const std::vector<size_t>& chosen) const;
  std::vector<size_t> excluded() const;
  // Folded names ("node[1-2,4]") of `nodes`, for one-line decisions.
  std::string names(const std::vector<size_t>& nodes) const;

 private:
  std::vector<std::string> names_;
  int min_, max_;
  std::vector<bool> connected_;
  std::vector<std::optional<Exclusion>> excluded_;
};

}  // namespace muster::launch
