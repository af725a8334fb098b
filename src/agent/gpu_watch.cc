// The agent's GPU watch (gpu_watch.h).
#include "agent/gpu_watch.h"

#include "gpu/proc_driver.h"
#include "gpu/xid.h"
#include "posix/file.h"

namespace muster::agent {
namespace {

constexpr size_t kMaxLinesPerRead = 256;  // the rest wait for the next round
constexpr size_t kMaxInformationBytes = 16384;

std::vector<gpu::GpuIdentity> proc_gpus() {
  std::vector<gpu::GpuIdentity> gpus;
  for (const auto& path : posix::glob_paths("/proc/driver/nvidia/gpus/*/information")) {
    auto text = posix::read_file_tail(path, kMaxInformationBytes);
    if (!text) continue;
    if (auto identity = gpu::parse_proc_gpu_information(*text)) gpus.push_back(std::move(*identity));
  }
  return gpus;
}

}  // namespace

std::optional<protocol::GpuFault> gpu_fault_of(const std::vector<gpu::GpuIdentity>& gpus, std::string_view message) {
  auto event = gpu::parse_gpu_kernel_line(message);
  if (!event) return std::nullopt;
  gpu::XidInfo info = gpu::xid_info(event->xid);
  protocol::GpuFault fault;
  fault.xid = static_cast<uint32_t>(event->xid);
  fault.pci = event->pci;
  fault.node_fault = info.fault == gpu::XidFault::node;
  // describe_event's "<node>: " is the head's to add: it knows the node by the name the job uses.
  std::string text = gpu::describe_event("", gpus, *event);
  fault.text = text.starts_with(": ") ? text.substr(2) : text;
  return fault;
}

GpuWatch::GpuWatch(posix::EventLoop& loop, Send send, std::string path)
    : loop_(loop), send_(std::move(send)), path_(std::move(path)) {}

bool GpuWatch::start() {
  auto reader = posix::KernelLogReader::open_at_end(path_);
  if (!reader) return false;
  reader_.emplace(std::move(*reader));
  auto watch = loop_.watch(reader_->fd(), posix::poll_readable, [this](uint32_t) { on_readable(); });
  if (!watch) {
    reader_.reset();
    return false;
  }
  watch_ = std::move(*watch);
  return true;
}

void GpuWatch::on_readable() {
  bool ended = false;
  auto lines = reader_->read_new(kMaxLinesPerRead, &ended);
  for (const auto& line : lines) {
    if (line.text.find("NVRM") == std::string::npos) continue;
    if (!gpus_read_) {
      gpus_ = proc_gpus();
      gpus_read_ = true;
    }
    if (auto fault = gpu_fault_of(gpus_, line.text)) send_(*fault);
  }
  if (ended) watch_.reset();  // a FIFO whose writers went, a file's end: nothing more will come
}

}  // namespace muster::agent
