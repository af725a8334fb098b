// The node's network interfaces and their addresses (getifaddrs), for the agent's Hello and for doctor's
// choice of NCCL_SOCKET_IFNAME.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace muster::posix {

struct InterfaceAddress {
  std::string interface;  // "eth0"
  std::string address;    // "10.0.0.5" or "fe80::1"
  int family = 0;         // 4 or 6
  bool loopback = false;
  bool up = false;
};

Result<std::vector<InterfaceAddress>> interface_addresses();

}  // namespace muster::posix
