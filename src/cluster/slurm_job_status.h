// What Slurm says about a batch job (`scontrol show job -o <id>`, one line of Field=value words) and the exit
// code `muster submit --wait` returns for it. Pure: the caller runs scontrol. Works without Slurm
// accounting (no sacct): slurmctld keeps a finished job for MinJobAge (300 s by default).
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace muster::cluster {

struct SlurmJobStatus {
  std::string state;   // JobState: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
  std::string reason;  // Reason: why it is pending or how it failed ("None" when nothing to say)
  std::string nodes;   // NodeList, a hostlist ("(null)" while pending)
  int exit_code = 0;   // ExitCode=<code>:<signal> of the batch script
  int signal = 0;
};

// An ErrorKind::parse error when the text holds no JobState or a malformed ExitCode.
Result<SlurmJobStatus> parse_scontrol_job(std::string_view text);

// True once the job can change no more (not pending, running, configuring, completing, suspended, ...).
bool job_finished(const SlurmJobStatus& status);

// Shell convention: 128+signal when the script was killed by one, else its exit code; a job that ended
// otherwise than COMPLETED with code 0 (NODE_FAIL, TIMEOUT before the script saw a signal) gives 1.
int job_exit_code(const SlurmJobStatus& status);

}  // namespace muster::cluster
