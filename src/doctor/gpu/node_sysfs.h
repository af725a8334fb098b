// What a node's /sys and /proc say about its GPU fabric, for `muster node gpu`: InfiniBand/RoCE ports
// (/sys/class/infiniband/<device>/ports/<n>/{state,phys_state,rate,link_layer}), the GPUDirect RDMA module
// (/sys/module/nvidia_peermem, or MLNX's nv_peer_mem), NVSwitches (/proc/driver/nvidia-nvswitch/devices/) and
// whether the fabric manager runs (an nv-fabricmanager in /proc/*/comm). Each reads below `root` ("" on a node;
// a fixture tree in the unit tests) and answers "nothing" when a path is missing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "doctor/gpu/gpu_facts.h"

namespace muster::doctor {

std::vector<IbPort> read_ib_ports(const std::string& root);
std::string loaded_peermem_module(const std::string& root);
int count_nvswitches(const std::string& root);
bool process_named(const std::string& root, std::string_view comm);

// "4: ACTIVE" -> "ACTIVE", "5: LinkUp" -> "LinkUp" (sysfs's state files: a number, a colon, the name).
std::string sysfs_state_name(std::string_view text);
// "400 Gb/sec (4X NDR)" -> 400; "2.5 Gb/sec (1X SDR)" -> 2.5; -1 when not a rate.
double parse_ib_rate(std::string_view text);

}  // namespace muster::doctor
