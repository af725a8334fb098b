// GpuMonitor: the node's NVIDIA GPUs as nvidia-smi's query interface reports them (telemetry/gpu_query.h), for the
// agent's telemetry. One `nvidia-smi --query-gpu=... --loop-ms=N` runs for as long as the job (a line per GPU per
// interval on a pipe the loop watches: no process started per second), a one-shot `--query-compute-apps` every
// 10 s tells which processes use each GPU (those not in the job's process groups count as others), and the kernel
// log's "NVRM: Xid" lines name new XID errors. Only on a node with GPUs (/dev/nvidiactl, or MUSTER_NODE_GPUS=1)
// and nvidia-smi on PATH; otherwise it says so once in a note. Its children get SIGKILL when it goes (and with the
// agent: parent-death signal). Never blocks: everything is read when the loop says it is readable.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "posix/event_loop.h"
#include "posix/fd.h"
#include "posix/process.h"
#include "telemetry/gpu_query.h"

namespace muster::agent {

class GpuMonitor {
 public:
  explicit GpuMonitor(posix::EventLoop& loop) : loop_(loop) {}
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  // Starts watching (once; later calls change nothing).
  void start(int interval_ms, int64_t now_ms);
  // Once per sample: restarts what ended, runs the compute-apps query and reads XIDs when they are due.
  // `job_groups`: the process groups of the job's workers.
  void tick(int64_t now_ms, const std::set<int>& job_groups);
  std::vector<telemetry::GpuSample> gpus() const;
  // The GPU index `device` names (CUDA_VISIBLE_DEVICES's entry: an index or a UUID).
  std::optional<uint32_t> index_of(const std::string& device) const;
  std::vector<std::string> take_notes();

 private:
  struct Child {
    posix::Process process;
    posix::Fd out;
    posix::EventLoop::FdWatch watch;
    std::string buffer;
    bool eof = false;
  };
  std::unique_ptr<Child> launch(const std::vector<std::string>& argv);
  void on_query_output();
  void on_apps_output();
  bool drain(Child& child);
  void finish_apps(const std::set<int>& job_groups);
  void read_xids(int64_t now_ms);
  void stop(std::unique_ptr<Child>& child);

  posix::EventLoop& loop_;
  bool started_ = false;
  bool available_ = false;
  int interval_ms_ = 1000;
  std::unique_ptr<Child> query_, apps_;
  int64_t restart_at_ms_ = 0, apps_at_ms_ = 0, xids_at_ms_ = 0;
  int64_t start_ms_ = 0, xid_seen_ms_ = 0;
  std::map<uint32_t, telemetry::GpuReading> readings_;
  std::map<std::string, uint32_t> others_;  // uuid -> processes not of the job
  std::map<uint32_t, uint32_t> xids_;       // index -> the last XID
  std::vector<std::string> notes_;
  std::string last_error_;
};

// Whether this node has NVIDIA GPUs: MUSTER_NODE_GPUS (1 or 0) when set, else /dev/nvidiactl.
bool node_has_nvidia_gpus();

}  // namespace muster::agent
