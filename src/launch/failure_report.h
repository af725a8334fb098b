// Why a launch failed, worked out on the head when the attempt is over, or later from the run directory
// (`muster why`). The catalogue and matcher are diagnosis/'s; this is what feeds them: every rank that failed
// on its own (or that muster stopped but whose ending explains more), with its exit, the last 64 KiB of its rank
// log and what its node noted about it (error file, OOM kill, flight recorder); then, when the matched entry
// asks and the nodes are still connected, doctor's findings and a module probe (a few seconds, only on failure).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "diagnosis/matcher.h"
#include "head/agent_pool.h"
#include "launch/gang.h"

namespace muster::launch {

// How one rank ended, as the gang saw it (or as manifest.json recorded it).
struct RankEnd {
  int rank = 0;
  std::string node;
  RankStatus status;
  bool root = false;  // the gang's root cause
};

struct FailureEvidence {
  std::vector<RankEnd> ends;
  std::map<int, std::map<std::string, std::string>> notes;  // rank -> what its node noted
  std::string run_dir;  // holds rank-N.log
  std::string python;   // the job's interpreter, for facts and module probes
  std::vector<std::string> env;  // K=V the probes run with (the job's propagated environment: its PYTHONPATH, ...)
};

// Every rank's ending from the gang.
std::vector<RankEnd> rank_ends(const Gang& gang, const cluster::RankPlan& plan);

// The ranks to diagnose, with their evidence.
std::vector<diagnosis::RankFailure> failed_ranks(const FailureEvidence& evidence);

// The whole diagnosis. With a `pool` (still connected; lost nodes are skipped) the facts and probes the matched
// entry asks for are gathered; without one the entries that need them do not match.
diagnosis::Diagnosis diagnose_failure(head::AgentPool* pool, const diagnosis::Catalogue& catalogue,
                                      const FailureEvidence& evidence);

}  // namespace muster::launch
