// The gang: what the head knows about every rank of one attempt, and the gang rule that follows from it.
// Pure bookkeeping (no I/O, no clock): the launcher feeds it events and asks what to do.
//
// The rule (DESIGN.md "Gang semantics"): the first rank to end badly — non-zero exit, a signal, failing to
// start, or its node being lost — is the root cause; from then on every other rank's ending is a
// consequence. A clean exit (0) of one rank is not a failure: torchrun waits for the others too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/rank_plan.h"

namespace muster::launch {

enum class RankPhase { pending, running, exited, signaled, failed_to_start, lost };

// "pending", "running", "exited", "signaled", "failed_to_start", "lost" (manifest.json, the exit table).
const char* rank_phase_name(RankPhase phase);

struct RankStatus {
  RankPhase phase = RankPhase::pending;
  int code = 0;            // exit code, or signal number when signaled
  std::string detail;      // human text: "exit 3", "killed by SIGKILL", "node3 lost: ..."
  bool by_muster = false;  // ended after muster started tearing the gang down
  int64_t ended_ms = 0;    // monotonic time of the ending (for the table's order)
};

class Gang {
 public:
  explicit Gang(const cluster::RankPlan& plan);

  void started(int rank);
  // `how`: exited/signaled/failed_to_start; returns true when this ending made the rank the root cause.
  bool ended(int rank, RankPhase how, int code, std::string detail, int64_t now_ms);
  // Marks every unfinished rank of `node_rank` lost; returns true when that made a root cause.
  bool node_lost(int node_rank, const std::string& why, int64_t now_ms);
  // From now on endings are consequences (after a root cause, or when the user interrupts the job).
  void tearing_down() { tearing_down_ = true; }

  bool all_ended() const;
  bool failed() const { return root_cause_.has_value(); }
  std::optional<int> root_cause() const { return root_cause_; }
  const RankStatus& status(int rank) const { return ranks_.at(static_cast<size_t>(rank)); }
  int world_size() const { return static_cast<int>(ranks_.size()); }

  // The exit code of the whole launch: 0, the root cause's code, 128+signal, or 1 for a lost node or a
  // worker that could not start.
  int exit_code() const;

 private:
  bool is_failure(const RankStatus& status) const;
  bool record(int rank, RankStatus status);

  std::vector<RankStatus> ranks_;
  std::vector<int> node_of_rank_;
  std::optional<int> root_cause_;
  bool tearing_down_ = false;
};

}  // namespace muster::launch

