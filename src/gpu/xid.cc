#include "gpu/xid.h"

#include <algorithm>
#include <array>

namespace muster::gpu {
namespace {

using enum XidFault;

// One row per code. The fixes name the command to run; "reset" is `nvidia-smi -r -i <GPU>` with nothing running on
// the GPU (or a reboot where a reset is not possible: NVSwitch systems reset all GPUs of a board together).
constexpr std::array kCatalogue = {
    XidInfo{13, "graphics engine exception",
            "a kernel on the GPU did something illegal (an out-of-range address, a bad instruction): nearly always a "
            "bug in the program that ran there, its CUDA extension or a mismatched library; rarely the GPU",
            "run the program again with CUDA_LAUNCH_BLOCKING=1 (or under compute-sanitizer) to find the kernel; if "
            "different programs hit it on this GPU only, run `dcgmi diag -r 3` on it",
            workload, false, false},
    XidInfo{31, "GPU memory page fault",
            "a kernel read or wrote GPU memory it had not mapped (an illegal memory access): nearly always the "
            "program's bug (an index out of range, a tensor freed too early); rarely the driver or the GPU",
            "run the program with CUDA_LAUNCH_BLOCKING=1 (or compute-sanitizer) to find the kernel; if it happens with "
            "different programs on this GPU only, run `dcgmi diag -r 3` on it",
            workload, false, false},
    XidInfo{43, "GPU stopped processing",
            "the GPU stopped a channel of one process after a fault of that process (often following XID 13 or 31, "
            "or a process killed in the middle of a kernel); the GPU itself is fine and other processes go on",
            "look at the program that ran there (the XID line names its pid); nothing to do on the node",
            workload, false, false},
    XidInfo{45, "preemptive cleanup",
            "the driver cleaned up a process's work after an earlier error or after the process was killed (Ctrl-C, "
            "SIGKILL, an OOM kill) while it used the GPU; it follows other events and is harmless alone",
            "nothing on its own; look at the XIDs logged just before it",
            workload, false, false},
    XidInfo{48, "double-bit ECC error",
            "GPU memory returned data that ECC could not correct (an uncorrectable, double-bit error): the process "
            "that used it gets a CUDA error; the memory is retired or its row remapped at the next reset",
            "reset the GPU once it is idle (`nvidia-smi -r -i <GPU>`, or reboot) so the bad memory is taken out of "
            "use; if it comes back, or the remapping fails (XID 64), have the GPU replaced (RMA)",
            node, true, true},
    XidInfo{61, "internal micro-controller breakpoint",
            "a micro-controller inside the GPU (the power/clock management unit) stopped at an internal breakpoint: "
            "the GPU may stop answering or run with wrong clocks",
            "reset the GPU (`nvidia-smi -r -i <GPU>`) or reboot; update the driver if it repeats, then RMA",
            node, true, false},
    XidInfo{62, "internal micro-controller halt",
            "a micro-controller inside the GPU halted (thermal or firmware trouble): the GPU cannot be used until it "
            "is reset",
            "reboot the node (or reset the GPU); check cooling and the GPU's temperature history "
            "(`nvidia-smi -q -d TEMPERATURE`); RMA if it repeats",
            node, true, false},
    XidInfo{63, "memory row remapping / page retirement recorded",
            "after a memory error the GPU recorded a row to remap (A100 and later) or a page to retire (older GPUs); "
            "the repair takes effect at the next GPU reset, the GPU runs on meanwhile",
            "reset the GPU when it is idle (`nvidia-smi -r -i <GPU>`, or reboot) so the remapping takes effect; "
            "watch `nvidia-smi -q -d ROW_REMAPPER`",
            node, false, true},
    XidInfo{64, "memory row remapping / page retirement failed",
            "the GPU could not record a remapping or retirement after a memory error (no spare rows left, or the "
            "record failed): the bad memory stays in use",
            "take the GPU out of service and have it replaced (RMA); until then leave the node out of jobs",
            node, true, true},
    XidInfo{74, "NVLink error",
            "an NVLink between GPUs (or to an NVSwitch) reported a fatal error and went down: collectives over it "
            "fail or hang",
            "reset the GPUs of the node (or reboot); check `nvidia-smi nvlink -s` and `-e`; if the same link fails "
            "again, reseat or replace the GPU board / NVSwitch tray",
            node, true, false},
    XidInfo{79, "GPU has fallen off the bus",
            "the GPU stopped answering on PCIe: it is gone for the driver until the node reboots (power, thermal, a "
            "PCIe or riser fault, or the GPU itself)",
            "reboot the node; check the GPU's power cables, riser and temperature; if it happens again, have the GPU "
            "or the slot replaced",
            node, true, false},
    XidInfo{92, "high single-bit ECC error rate",
            "GPU memory corrects single-bit errors at a high rate: corrected, so nothing failed yet, but the memory "
            "is degrading",
            "watch `nvidia-smi -q -d ECC`; schedule a reset (remapping) and, if the rate stays high, an RMA",
            node, false, true},
    XidInfo{94, "contained ECC error",
            "an uncorrectable memory error was contained: only the processes that used the bad memory were stopped "
            "(a rank of this job among them if it ran there); the GPU needs a reset to remap the row",
            "reset the GPU once it is idle (`nvidia-smi -r -i <GPU>`, or reboot); RMA if it comes back",
            node, true, true},
    XidInfo{95, "uncontained ECC error",
            "an uncorrectable memory error could not be contained: every process on the GPU is affected and the GPU "
            "must be reset before it is used again",
            "reset the GPU (`nvidia-smi -r -i <GPU>`) or reboot the node before running anything there; RMA if it "
            "comes back",
            node, true, true},
    XidInfo{119, "GSP RPC timeout",
            "the GPU System Processor (the GPU's firmware processor) stopped answering the driver: the GPU hangs "
            "until it is reset",
            "reset the GPU or reboot; update the driver (several releases fixed GSP timeouts); if it repeats on "
            "this GPU only, RMA",
            node, true, false},
    XidInfo{120, "GSP error",
            "the GPU System Processor's firmware reported an error: the GPU is in an unknown state",
            "reset the GPU or reboot; update the driver; RMA if it repeats on this GPU only",
            node, true, false},
    XidInfo{154, "GPU recovery action changed",
            "the driver says the GPU needs a recovery action (a GPU reset, or a node reboot) before it can be trusted",
            "do what the line asks (GPU Reset Required: `nvidia-smi -r -i <GPU>`; Node Reboot Required: reboot)",
            node, true, false},
};

}  // namespace

const char* xid_fault_name(XidFault fault) {
  switch (fault) {
    case node: return "node";
    case workload: return "workload";
    case unknown: return "unknown";
  }
  return "unknown";
}

XidInfo xid_info(int code) {
  for (const auto& info : kCatalogue) {
    if (info.code == code) return info;
  }
  return XidInfo{code, "XID not in muster's catalogue",
                  "an error the NVIDIA driver logged that muster does not know",
                  "look the code up in NVIDIA's XID list (docs.nvidia.com/deploy/xid-errors) and in "
                  "`nvidia-smi -q` for this GPU",
                  unknown, false, false};
}

std::vector<int> known_xids() {
  std::vector<int> codes;
  for (const auto& info : kCatalogue) codes.push_back(info.code);
  std::sort(codes.begin(), codes.end());
  return codes;
}

}  // namespace muster::gpu
