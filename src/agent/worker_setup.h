// What the agent prepares on its node for a worker whose SpawnWorker asks for diagnostics (docs/agent-protocol.md
// section 10), and what it reads back when the worker ends. One directory per job and node, private to the user:
// $XDG_STATE_HOME/muster/runs/<job>/<hostname>/ (default ~/.local/state/...), 0700; per worker:
//   progress-<worker>      MUSTER_PROGRESS_FILE: the script touches it to say "I am making progress"
//   error-<worker>.json    TORCHELASTIC_ERROR_FILE: torch's @record writes the exception there
//   stacks/<pid>.stacks    MUSTER_STACKS_DIR: the Python stack hook writes dumps there (stack_dumper.h)
//   flight-recorder-<worker>/nccl_trace_rank_<r>
//                          TORCH_NCCL_DEBUG_INFO_TEMP_FILE prefix: PyTorch's NCCL flight recorder (GPU nodes:
//                          /dev/nvidiactl, or MUSTER_NODE_GPUS=1|0 in the agent's environment), written by torch
//                          on a collective's timeout or by the stack hook when the agent asks for stacks
// and, for Python workers, PYTHONPATH gets muster's hook directory first (a sitecustomize.py that installs the
// stack hook and then runs the sitecustomize it shadows) and PYTHONFAULTHANDLER=1 (a crash prints the Python
// traceback). A variable the worker's environment already sets is left alone. The hostname level keeps nodes
// that share one home directory apart. The directory's life (removed when the job ended well on this node, else
// kept until pruned) is run_state.h's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "agent/run_state.h"
#include "util/result.h"

namespace muster::agent {

struct WorkerPaths {
  std::string dir;  // the job's directory on this node ("" without diagnostics)
  std::string progress_file;
  std::string error_file;
  std::string stacks_dir;
  std::string flight_prefix;  // empty when the flight recorder is not set up
};

class WorkerSetup {
 public:
  // `stack_signal`: the signal the hook listens on; `hook_text`: the sitecustomize.py to install; `gpus`: whether
  // the node has NVIDIA GPUs (nullopt: MUSTER_NODE_GPUS if set, else whether /dev/nvidiactl exists).
  WorkerSetup(int stack_signal, std::string_view hook_text, std::optional<bool> gpus = std::nullopt);
  // The node's name for its job directory when it is not this machine's host name (a virtual node).
  void set_node_name(std::string name) { node_name_ = std::move(name); }

  // Creates the job's directory and the hook (once), adds the worker's variables to `env` (K=V entries, the
  // worker's whole environment) where they are not set, and returns the worker's paths.
  Result<WorkerPaths> prepare(const std::string& job, uint32_t worker, uint32_t features,
                              std::vector<std::string>& env);

  // What the worker left for the head once it ended: its error file's JSON ("error-file"), the flight recorder's
  // dumps ("flight-recorder": their paths on the node; "flight-recorder-dump:<file name>": each one's bytes, at
  // most 8 MiB each and 32 MiB in all, for the run directory), the kernel's OOM kill of `pid` ("oom-kill", the
  // log line; only when `killed` by SIGKILL). Files it read are removed, except the flight recorder's.
  // `started_ms`: when it was spawned (posix::monotonic_ms); `oom_kills_at_start`: posix::oom_kill_count() then.
  // Called for a worker that failed: its job's directory is kept when the agent ends (finish). `kernel_log`: look
  // for the OOM killer there (a scan of /dev/kmsg: skipped for a worker the agent itself stopped, whose ending
  // explains nothing, so that a teardown of many ranks does not read the log once each).
  std::map<std::string, std::string> collect(const WorkerPaths& paths, int pid, bool killed, int64_t started_ms,
                                             uint64_t oom_kills_at_start, bool kernel_log = true);

  // The agent ends: the directories of jobs that ended well on this node (no worker failed, the head did not
  // vanish: `head_lost`) are removed, the others kept for `why` (run_state.h).
  void finish(bool head_lost);

  int stack_signal() const { return stack_signal_; }

 private:
  Result<std::string> hook_dir();

  int stack_signal_;
  std::string_view hook_text_;
  std::string hook_dir_;  // made on first use
  bool gpus_;             // this node has NVIDIA GPUs (/dev/nvidiactl)
  std::string node_name_;
  std::map<std::string, RunStateDir> taken_;  // by directory: the jobs this agent prepared, their locks held
  std::set<std::string> failed_;              // directories of jobs a worker failed in
  bool pruned_ = false;                       // prune_run_states ran (once per agent)
};

// The node's directory for a job's files (not created): named after `node`, or this machine's host name when
// empty (a virtual node names itself: many share one machine).
std::string job_node_dir(const std::string& job, const std::string& node = "");

}  // namespace muster::agent
