// Internal to the checks (checks/checks.h): the input every check reads, the per-concept check functions run_checks
// calls in order, and small helpers they share (majority vote, IPv4 parsing, sizes). Not for other layers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/checks/checks.h"

namespace muster::doctor::detail {

struct CheckInput {
  const std::vector<std::string>& names;
  const std::vector<NodeFacts>& facts;
  const CheckOptions& options;

  std::size_t size() const { return names.size(); }
  std::size_t master() const { return options.master < names.size() ? options.master : 0; }
  bool any_gpus() const;
};

using Findings = std::vector<Finding>;

void check_hostnames(const CheckInput& in, Findings& out);   // checks/names.cc
void check_resolution(const CheckInput& in, Findings& out);  // checks/names.cc
void check_loopback(const CheckInput& in, Findings& out);    // checks/names.cc
void check_containers(const CheckInput& in, Findings& out);  // checks/containers.cc
void check_versions(const CheckInput& in, Findings& out);    // checks/versions.cc
void check_paths(const CheckInput& in, Findings& out);       // checks/paths.cc
void check_network(const CheckInput& in, Findings& out);     // checks/network.cc
void check_infiniband(const CheckInput& in, Findings& out);  // checks/network.cc
void check_shm(const CheckInput& in, Findings& out);         // checks/resources.cc
void check_memlock(const CheckInput& in, Findings& out);     // checks/resources.cc
void check_gpus(const CheckInput& in, Findings& out);        // checks/resources.cc
void check_clock(const CheckInput& in, Findings& out);       // checks/resources.cc

// The interface NCCL and gloo should bind to: same name on every node, up, not loopback, IPv4, one subnet,
// distinct addresses (checks/network.cc).
struct CommonInterface {
  std::string name;
  std::vector<std::string> addresses;  // per node
};
std::optional<CommonInterface> find_common_interface(const CheckInput& in);

// Values grouped by equality, the majority first (ties: the group holding the master, then first seen).
struct ValueGroup {
  std::string value;
  std::vector<std::size_t> nodes;
};
std::vector<ValueGroup> group_values(const std::vector<std::optional<std::string>>& values,
                                     std::size_t master);

std::string node_list(const CheckInput& in, const std::vector<std::size_t>& nodes);  // "node[1,3]" (folded)
std::string first_ipv4(const std::vector<std::string>& addresses);                   // "" if none
bool is_ipv4(std::string_view address);
bool is_loopback_address(std::string_view address);   // 127.0.0.0/8 or ::1
std::string ipv4_prefix24(std::string_view address);  // "10.0.0" for 10.0.0.7
std::string format_bytes(int64_t bytes);              // "64 MiB", "1 GiB", "1.5 GiB"

}  // namespace muster::doctor::detail
