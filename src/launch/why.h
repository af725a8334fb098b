// `muster why [RUN-DIR|JOB-ID]`: what happened to a finished job, from its run directory alone: the diagnosis
// the head made when the job failed (manifest.json "diagnosis"), its stalls and where their stacks are, or —
// `rematch` — a diagnosis made again now from the rank logs, error files and node notes with the current
// catalogue (for a catalogue entry just written; doctor's facts cannot be gathered after the fact).
#pragma once

#include <string>

#include "diagnosis/catalogue.h"
#include "util/result.h"

namespace muster::launch {

struct WhyOptions {
  std::string which;  // run dir or job id; empty: the newest job of this user on this machine
  bool rematch = false;
  bool json = false;  // the diagnosis object only
};

// The report to print.
Result<std::string> explain_run(const WhyOptions& options, const diagnosis::Catalogue& catalogue);

// The run directory `which` names (a run directory, a job id; empty: the newest job of this user here).
Result<std::string> resolve_run_dir(const std::string& which);

}  // namespace muster::launch
