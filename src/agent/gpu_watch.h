// The agent's watch on its node's GPUs during a job: the kernel log (posix/kernel_log.h) read from the agent's start
// on, every new line of NVIDIA's driver that reports an XID (gpu/kernel_events.h, which covers uncorrectable ECC:
// XIDs 48, 63, 64, 92, 94, 95) sent to the head at once as a GpuFault, naming the GPU (its index from
// /proc/driver/nvidia, its bus id) and what the code means (gpu/xid.h). The head says it in the live log and, for a
// fault the catalogue calls the node's, blames the node when the attempt fails (launch/launcher.cc).
//
// Owns the kernel log's descriptor and its registration in the event loop; never blocks, never ends the agent: a
// log it may not read (not root, kernel.dmesg_restrict=1) means no watch, silently (the doctor's --gpu check says
// so). A node without NVIDIA's driver logs no such line: the watch costs one idle descriptor there.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpu/kernel_events.h"
#include "posix/event_loop.h"
#include "posix/kernel_log.h"
#include "protocol/messages.h"

namespace muster::agent {

class GpuWatch {
 public:
  using Send = std::function<void(const protocol::GpuFault&)>;
  // `path`: the kernel log (/dev/kmsg; a test's FIFO bind-mounted there reads the same).
  GpuWatch(posix::EventLoop& loop, Send send, std::string path = "/dev/kmsg");
  // Starts reading at the log's current end; false when it cannot be read (then nothing is watched).
  bool start();

 private:
  void on_readable();

  posix::EventLoop& loop_;
  Send send_;
  std::string path_;
  std::optional<posix::KernelLogReader> reader_;
  posix::EventLoop::FdWatch watch_;
  std::vector<gpu::GpuIdentity> gpus_;  // from /proc/driver/nvidia, read at the first event
  bool gpus_read_ = false;
};

// The GpuFault for one kernel-log message, or nullopt when it is not a GPU error line (pure).
std::optional<protocol::GpuFault> gpu_fault_of(const std::vector<gpu::GpuIdentity>& gpus, std::string_view message);

}  // namespace muster::agent
