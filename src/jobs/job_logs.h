// `muster logs JOB [--rank R] [--node N] [-f]`: a job's rank logs from its run directory (the head writes every
// byte of every rank to rank-N.log; launch/rank_log_files.h). One rank: its bytes as they are. Several: their
// lines, each prefixed "[node:rank] " (rank by rank; when following, as they come). `follow` prints what is
// there, then what is added, until the job is no longer running (it ended, or its head died) and everything it
// wrote has been printed. The rank -> node layout comes from the job's record.
#pragma once

#include <string>
#include <vector>

#include "head/job_registry.h"
#include "util/result.h"

namespace muster::jobs {

struct LogsOptions {
  std::string which;         // job id or run directory; empty: the newest job
  std::string ranks = "all";  // logs::RankFilter syntax: 3, 0,2-3, all
  std::string node;          // a node name, or its index in the job (node rank); empty: every node
  bool follow = false;
};

// The ranks the options select in the job, with their node names; an error names what matched nothing.
struct RankSource {
  int rank = 0;
  std::string node;
};
Result<std::vector<RankSource>> select_ranks(const head::JobRecord& job, const std::string& ranks,
                                             const std::string& node);

Result<int> run_logs(const LogsOptions& options);

}  // namespace muster::jobs
