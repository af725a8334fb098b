// One attempt of a job (DESIGN.md "Attempts, exclusion and spares"): the nodes it runs on (indices into the job's
// hosts, in host order: node rank = position), its rank plan over those nodes, its gang, where its rendezvous is,
// and how it ended. The job keeps every attempt, so the manifest, `why` and `ps` tell the whole story.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/rank_plan.h"
#include "launch/gang.h"
#include "launch/restart_policy.h"

namespace muster::launch {

struct Attempt {
  int number = 0;               // 0 for the first; TORCHELASTIC_RESTART_COUNT
  std::vector<size_t> nodes;    // job host indices; node rank = position
  std::vector<size_t> joined;   // spares this attempt brought in (not in the previous one)
  cluster::RankPlan plan;       // over `nodes`, renumbered (plan_for)
  std::unique_ptr<Gang> gang;
  std::string master_addr;
  int master_port = 0;
  std::string reason;           // why it was started: empty for the first, the restart's reason after
  std::string excluded;         // the excluded nodes when it started, folded ("node3"), for the workers' env
  int64_t started_ms = 0;
  int64_t ended_ms = 0;
  bool tearing_down = false;    // a root cause, a stall or an interrupt ended it
  bool stalled = false;
  bool progressed = false;      // a rank made progress (output or its progress file)
  std::vector<size_t> lost;     // its nodes lost while it ran, in order (not those lost only with their carrier)
  std::set<size_t> awaiting_clear;  // nodes whose AttemptCleared has not come
  int64_t clear_deadline_ms = 0;
  std::optional<Fault> fault;   // why it failed, as judged at its end
  std::string decision;         // the one line said at its end (excluded, restarted, stopped)
  int exit_code = 0;

  size_t node_of_rank(int rank) const;  // the job host index of `rank`'s node
  bool has_node(size_t node) const;
  int node_rank_of(size_t node) const;  // -1 when not in this attempt
};

// `full` (one NodePlan per job host, in host order) restricted to `nodes` and renumbered: node ranks, global
// ranks and GROUP_RANKs follow the order of `nodes`.
cluster::RankPlan plan_for(const cluster::RankPlan& full, const std::vector<size_t>& nodes);

}  // namespace muster::launch
