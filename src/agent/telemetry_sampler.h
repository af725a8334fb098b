// TelemetrySampler: the agent's side of telemetry (docs/agent-protocol.md section 11, docs/design/telemetry.md).
// After TelemetryStart it sends the head a Telemetry frame every interval (a timer in the agent's loop): the node's
// figures (node_meter.h), every rank's steps (step_sources.h) and process figures, the GPUs' (gpu_monitor.h). It
// prepares each worker that asks for step timing (SpawnWorker kFeatureSteps: the step ring's prefix, the marker
// FIFO) and learns from the worker's environment what its figures map to: the job's network interface
// (NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME, else the one routing to MASTER_ADDR) and the rank's GPU
// (CUDA_VISIBLE_DEVICES and LOCAL_RANK). Reading a sample costs the node ~0.2 ms plus ~0.05 ms per rank; nothing
// here blocks, and nothing it cannot read is an error (the figure is left out, a note says why once).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/gpu_monitor.h"
#include "agent/head_link.h"
#include "agent/node_meter.h"
#include "agent/step_files_dir.h"
#include "agent/step_sources.h"
#include "posix/event_loop.h"
#include "protocol/messages.h"

namespace muster::agent {

class TelemetrySampler {
 public:
  struct WorkerInfo {
    uint32_t id = 0;
    int pid = 0;
    int pgid = 0;
    bool running = false;
  };
  using Workers = std::function<std::vector<WorkerInfo>()>;

  TelemetrySampler(posix::EventLoop& loop, HeadLink& head, Workers workers, std::string node_name);

  void start(const protocol::TelemetryStart& start);
  // A SpawnWorker before it goes to the worker set: files and variables for step timing, the worker's facts.
  void prepare(protocol::SpawnWorker& spawn);
  // A chunk of a worker's output, as it was read.
  void output(uint32_t worker, protocol::Stream stream, std::string_view bytes) { steps_.output(worker, stream, bytes); }
  // Worker `worker`, reaped at `exited_at_ms`, is about to be reported: its last steps go first (a sample now,
  // unless one was taken since it ended or it never stepped), so the head has them before it hears the worker
  // ended. (A sample per ending worker that never stepped made 1,000 ranks of `true` at 8 % of a core miss the
  // agent's heartbeats: tests/local/launch_slow_machine_test.sh.)
  void worker_ended(uint32_t worker, int64_t exited_at_ms);

 private:
  struct Facts {
    std::string local_rank, visible_devices;
  };
  void on_timer(int64_t now_ms);
  void take_baseline(int64_t now_ms);
  void sample(int64_t now_ms);
  void take_sample(int64_t now_ms);
  void choose_interface();
  uint32_t gpu_of(uint32_t worker) const;

  posix::EventLoop& loop_;
  HeadLink& head_;
  Workers workers_;
  std::string node_name_;
  posix::EventLoop::Timer timer_;
  NodeMeter node_;
  GpuMonitor gpus_;
  std::optional<StepFilesDir> step_dir_;  // made at the first spawn that asks for steps; outlives steps_'s files
  StepSources steps_;
  std::string agent_cgroup_;
  std::map<uint32_t, std::unique_ptr<ProcessMeter>> processes_;  // by rank
  std::map<uint32_t, Facts> facts_;                              // by worker
  std::vector<std::string> pending_notes_;
  int interval_ms_ = 1000;
  // A sample's time x kBusyFactor is the least time to the next one.
  static constexpr int64_t kBusyFactor = 10;
  // Ranks whose process figures (CPU, memory, run queue, throttling) are read each sample: the first ones; the
  // rest have their steps only (a node of a few ranks has them all).
  static constexpr size_t kMaxMeteredProcesses = 256;
  int64_t last_ms_ = 0;
  bool started_ = false;
  // Off the start's path: the first interval's baseline and the job's interface (a netlink dump) wait until
  // kBaselineDelayMs after TelemetryStart, when the workers it came with are started (16 agents on 2 cores paid
  // ~20 ms of a 150 ms start for them before).
  static constexpr int64_t kBaselineDelayMs = 50;
  bool baseline_due_ = false;
  bool interface_due_ = false;
  std::string nccl_ifname_, gloo_ifname_, master_addr_;  // the last spawn's, for choose_interface
  bool step_error_sent_ = false;
};

}  // namespace muster::agent
