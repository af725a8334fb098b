// The NVIDIA driver's lines in the kernel log, parsed (pure): an XID ("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234,
// name=python3, GPU has fallen off the bus."), the same event logged without a code ("NVRM: GPU 0000:3b:00.0: GPU has
// fallen off the bus."), and the line that names a GPU's UUID before its first XID ("NVRM: GPU at PCI:0000:3b:00:
// GPU-8f6a..."). Read by the agent's watch during a job (agent/gpu_watch.h) and by the doctor's --gpu check (the log
// since boot). The message is the text after the kernel's record header (posix/kernel_log.h strips it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace muster::gpu {

struct GpuKernelEvent {
  int xid = 0;               // the code; 79 for a "fallen off the bus" line without one
  std::string pci;           // the GPU's bus id as normalize_pci gives it ("0000:3b:00")
  int pid = -1;              // the process the driver named (pid=...), -1 when none or '<unknown>'
  std::string process;       // its name (name=...), "" when none
  std::string detail;        // the rest of the line ("GPU has fallen off the bus.")
  int64_t monotonic_ms = -1;  // when the kernel logged it (ms since boot), -1 unknown: the caller sets it
  bool operator==(const GpuKernelEvent&) const = default;
};

// nullopt for every line that is not one of the driver's GPU error lines.
std::optional<GpuKernelEvent> parse_gpu_kernel_line(std::string_view message);

// "NVRM: GPU at PCI:0000:3b:00: GPU-8f6a1b2c-..." -> {"0000:3b:00", "GPU-8f6a1b2c-..."}.
struct GpuUuidLine {
  std::string pci;
  std::string uuid;
};
std::optional<GpuUuidLine> parse_gpu_uuid_line(std::string_view message);

// One spelling of a PCI bus id for comparing what the kernel, /proc/driver/nvidia and nvidia-smi print:
// "00000000:3B:00.0", "0000:3b:00.0", "PCI:0000:3b:00", "3b:00.0" -> "0000:3b:00" (domain of 4 hex digits, lower
// case, no function number). Text that is not a bus id comes back lower-cased and trimmed.
std::string normalize_pci(std::string_view text);

// What names one GPU of a node for a person: its index (nvidia-smi's, or the device minor: /dev/nvidiaN), bus id
// and UUID; any of them may be unknown.
struct GpuIdentity {
  int index = -1;
  std::string pci;   // normalize_pci's form
  std::string uuid;
  std::string model;
};

// "GPU 3 (0000:3b:00, GPU-8f6a...)", "GPU at 0000:3b:00" when the index is unknown: the GPU of `pci` among `gpus`.
std::string describe_gpu(const std::vector<GpuIdentity>& gpus, const std::string& pci);

// The line for a person, naming the node, the GPU and what the code means:
// "node4: GPU 3 (0000:3b:00) XID 79 (GPU has fallen off the bus; pid 1234 python3): the GPU stopped answering ...".
std::string describe_event(const std::string& node, const std::vector<GpuIdentity>& gpus, const GpuKernelEvent& event);

}  // namespace muster::gpu
