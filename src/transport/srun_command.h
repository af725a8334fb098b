// Pure construction of the srun command line that starts one agent on one node of a Slurm allocation (no
// I/O; unit-tested). srun execs its argv directly, with no shell on either side, so no word is quoted:
// user arguments never go through it anyway (they travel inside SpawnWorker frames).
//
// The step is shaped for an agent, whatever the job asked for: one task on one node (`--overlap`, so the
// agents of a job never wait for each other's CPUs and a user's own steps still fit), every CPU, the memory
// and the GPUs the job holds on that node (srun's default without --exact), stdout unbuffered (srun's default
// forwards whole lines only, which would hold a frame back until a 0x0a byte), stdin forwarded (the upload
// and the frames), no MPI plugin, the head's whole environment (--export=ALL; a site default of NONE would
// leave the agent without PATH). srun reads some of the job's variables as defaults for these options
// (SLURM_NTASKS_PER_NODE from `sbatch --ntasks-per-node`, SLURM_CPUS_PER_TASK, which would imply --exact,
// SLURM_MEM_PER_CPU, which conflicts with nothing we pass but would shrink the step): srun runs without
// them, and the agent gets the job-level ones back.
//
// The agent's environment then drops every variable that describes the agent's own task and step
// (SLURM_PROCID=0, SLURM_NTASKS=1, SLURM_STEP_ID, ...): workers are not Slurm tasks, and a framework that
// trusts SLURM_PROCID over RANK (PyTorch Lightning checks Slurm first) would make every rank 0. The job's
// SLURM_JOB_* variables stay.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "transport/transport.h"

namespace muster::transport {

// srun's own input variables that the job may set and the agent's step must not inherit.
const std::vector<std::string>& srun_input_variables_removed();

// Variables srun sets for the agent's task or step, removed from the agent's (so the workers') environment.
const std::vector<std::string>& step_variables_removed();

// `head_env`: the head's values of the variables that srun_argv gives back to the agent (those of
// srun_input_variables_removed() and SLURM_JOB_NAME, which `srun --job-name` would overwrite); others are
// ignored. `command`: what the step runs (bootstrap_words).
std::vector<std::string> srun_argv(const std::string& node,
                                   const std::map<std::string, std::string>& head_env,
                                   const std::vector<std::string>& command);

// `sh -c '<bootstrap script>' muster-bootstrap <build-id> <size> <agent args...>` as separate words.
std::vector<std::string> bootstrap_words(const SelfBinary& binary, const std::vector<std::string>& agent_args);

}  // namespace muster::transport
