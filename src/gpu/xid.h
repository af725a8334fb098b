// The XID catalogue: what the NVIDIA driver's error codes ("NVRM: Xid (PCI:0000:3b:00): 79, ...") mean, whose fault
// each usually is and what to do about it, in muster's own words (after NVIDIA's XID documentation: docs.nvidia.com
// /deploy/xid-errors). Pure data and a lookup; the kernel-log parser (kernel_events.h), the doctor's --gpu check and
// the launcher's live notice all read it, so a code means the same everywhere.
//
// `fault`: node — the GPU or the node is at fault (memory, the bus, NVLink, firmware): a job is better off without
// that node, and a job with spares leaves it out; workload — nearly always the program on that GPU (an illegal
// address, a killed process): the node is fine; unknown — a code this catalogue does not know.
// `stops_work`: the GPU cannot go on with what runs on it (the process is killed, the GPU is gone or must be reset):
// a job whose rank uses it is stopped at once rather than left to hang in its next collective.
#pragma once

#include <string>
#include <vector>

namespace muster::gpu {

enum class XidFault { node, workload, unknown };
const char* xid_fault_name(XidFault fault);  // "node", "workload", "unknown"

struct XidInfo {
  int code = 0;
  const char* name = "";     // "GPU has fallen off the bus"
  const char* meaning = "";  // what happened, and the usual causes
  const char* fix = "";      // what to do, concretely
  XidFault fault = XidFault::unknown;
  bool stops_work = false;
  bool ecc = false;          // an uncorrectable memory (ECC) event or its row remapping / page retirement
};

// The entry for `code`; for a code not in the catalogue, an entry with that code, fault unknown, a generic meaning
// and fix (look it up in NVIDIA's list).
XidInfo xid_info(int code);

// Every code the catalogue knows, in ascending order.
std::vector<int> known_xids();

}  // namespace muster::gpu
