// Whose fault a failed attempt was, when its root cause is not a lost node (the job machine knows those itself):
// from the ranks' failures as the failure report gathers them (failure_report.h) and the catalogue entry that
// explains them (diagnosis/matcher.h), with no probe of the nodes — the decision is made while the next attempt
// waits. Pure.
//   - the same Python exception as the last error line of every rank that failed on its own, two of them at least
//     (or the only rank): the workload's (a syntax error, a bad config, a missing file fail every try the same
//     way). The gang's teardown often stops the others before they raise theirs: the job machine also calls a
//     failure the workload's when its root cause raised the same exception as the attempt before;
//   - else the matched entry's `fault`: the node's (its node is named: an OOM kill, an NCCL network or GPU error,
//     a full disk), the workload's, or not known.
//   - a failure neither of these explains, in an attempt whose steps are counted and where no rank made its first
//     step (first_step.h): the workload's (a script that fails while it loads its data or its checkpoint fails so
//     on every try; a node's fault before the first step is still the node's: lost, its GPU, its catalogue entry).
// Before all of these: a GPU fault of the node's own that an attempt's node reported while it ran (an XID the
// catalogue calls the GPU's, agent/gpu_watch.h) makes the failure that node's, whatever the ranks said.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/matcher.h"
#include "launch/first_step.h"
#include "launch/restart_policy.h"

namespace muster::launch {

// What the head knows of the attempt besides its ranks' failures.
struct AttemptFacts {
  int world_size = 1;
  std::function<std::optional<size_t>(const std::string&)> host_of;  // a node's name -> its index among the hosts
  std::map<size_t, std::string> gpu_faults;  // an attempt node -> its first GPU fault of its own (the agent's text)
  FirstStep first_step = FirstStep::unknown;
};

Fault judge_fault(const std::vector<diagnosis::RankFailure>& failures, const diagnosis::Diagnosis& diagnosis,
                  const AttemptFacts& facts);

// The exception a rank's output ends with ("RuntimeError: boom"), from its last lines (or its error file); empty
// when there is none.
std::string last_exception(const diagnosis::RankFailure& failure);

}  // namespace muster::launch
