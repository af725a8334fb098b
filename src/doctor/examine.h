// The doctor's work on a connected pool, shared by `muster doctor` and `muster launch --preflight`: every
// node's facts (`muster node facts`), optionally the node-to-node ssh check (fast or the full N×N matrix), the shared-filesystem test, the master port
// and the bandwidth test, then the cross-node checks (checks/checks.h). Printing is the caller's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "doctor/bandwidth/model.h"
#include "doctor/bandwidth/measure.h"
#include "doctor/gpu/gpu_facts.h"
#include "doctor/node/node_facts.h"
#include "doctor/ssh/matrix.h"
#include "head/agent_pool.h"
#include "util/finding.h"
#include "util/result.h"

namespace muster::doctor {

// The GPU round (`muster node gpu` on every node, doctor/gpu/): off; when a node has GPUs (launch --preflight);
// always (doctor --gpu, which says so plainly when there are none).
enum class GpuRound { off, when_present, always };

// Whether the GPU round runs: always; or when_present and a node has nvidia-smi or GPUs (so `launch --preflight`
// on nodes without GPUs skips it).
bool wants_gpu_round(GpuRound mode, const std::vector<NodeFacts>& facts);

struct ExamineOptions {
  std::string python = "python3";  // the job's interpreter
  std::vector<std::string> paths;  // code/data directories that must be identical everywhere
  SshMatrixMode ssh_matrix = SshMatrixMode::fast;  // node-to-node ssh, every ordered pair (ssh/matrix.h)
  bool shared_fs = true;           // which paths are one shared filesystem
  bool import_torch = false;       // see doctor/node/python_probe.h
  bool shared_caches = true;       // which of the job's cache directories nodes share (checks/cache_sharing.h)
  // The job's cache variables as the job will get them ("K=V"; node/cache_dirs.h): set on the facts command, over the
  // node's own environment.
  std::vector<std::string> job_env;
  int slots_per_node = -1;
  // The job runs in containers of this image: runtime, image id and GPU support per node, versions read inside
  // the image (doctor/checks/containers.cc).
  std::string container_image;
  std::string container_runtime;
  int master_port = 0;  // check it is free on node 0 and reachable from every node; 0: skip
  int timeout_ms = 30'000;  // for gathering the facts
  std::optional<BandwidthOptions> bandwidth;  // measure node-to-node throughput (doctor/bandwidth/measure.h)
  GpuRound gpu = GpuRound::off;
};

struct Examination {
  std::vector<Finding> findings;
  std::optional<BandwidthResult> bandwidth;  // when measured
  std::optional<SshCheck> ssh;               // when the node-to-node ssh check ran
  std::vector<NodeFacts> facts;              // every node's, in the order of the names
  std::vector<GpuNodeFacts> gpu;             // when the GPU round ran, every node's
};

// The head's values of the cache variables `muster launch` passes to a job by default (node/cache_dirs.h).
std::vector<std::string> default_job_cache_env();

// Fails only when the facts could not be gathered at all (an interrupt); node problems are findings.
Result<Examination> examine(head::AgentPool& pool, const std::vector<std::string>& names,
                            const ExamineOptions& options);
// The findings of examine.
Result<std::vector<Finding>> examine_findings(head::AgentPool& pool, const std::vector<std::string>& names,
                                             const ExamineOptions& options);

}  // namespace muster::doctor
