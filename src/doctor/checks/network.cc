// The network the job will use: one interface, same name on every node, on one subnet -> the exact
// NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME; InfiniBand HCAs on every node -> NCCL_IB_HCA, else NCCL falls back
// to TCP sockets.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "doctor/checks/support.h"

namespace muster::doctor::detail {
namespace {

const Interface* usable_interface(const NodeFacts& node, const std::string& name) {
  for (const auto& interface : node.interfaces) {
    if (interface.name == name && interface.up && !interface.loopback && is_ipv4(interface.address))
      return &interface;
  }
  return nullptr;
}

// The interface `name` on every node, if all are in the master's subnet with distinct addresses. The facts
// carry no prefix length, so "same subnet" is assumed to mean the same first three octets (a /24); a wider
// subnet with nodes in different /24s is then missed, and suggested nowhere rather than wrongly. Distinct
// addresses rule out docker0/virbr0, which have the same address on every node and connect none of them.
std::optional<CommonInterface> interface_on_all(const CheckInput& in, const std::string& name) {
  const Interface* on_master = usable_interface(in.facts[in.master()], name);
  if (!on_master) return std::nullopt;
  const std::string subnet = ipv4_prefix24(on_master->address);
  CommonInterface common{name, {}};
  std::set<std::string> seen;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Interface* interface = usable_interface(in.facts[i], name);
    if (!interface) return std::nullopt;
    if (ipv4_prefix24(interface->address) != subnet || !seen.insert(interface->address).second)
      return std::nullopt;
    common.addresses.push_back(interface->address);
  }
  return common;
}

// Usable interfaces of one node, for the error message: "eth0 10.0.0.1, ib0 10.1.0.1".
std::string describe_interfaces(const NodeFacts& node) {
  std::vector<std::string> items;
  for (const auto& interface : node.interfaces) {
    if (interface.up && !interface.loopback && is_ipv4(interface.address)) {
      items.push_back(interface.name + " " + interface.address);
    }
  }
  return items.empty() ? "no interface up with an IPv4 address" : fmt::format("{}", fmt::join(items, ", "));
}

}  // namespace

std::optional<CommonInterface> find_common_interface(const CheckInput& in) {
  // Candidates in the master's order; prefer the one carrying the address the nodes resolve the master to.
  const NodeFacts& master = in.facts[in.master()];
  auto resolved = master.resolves.find(in.names[in.master()]);
  std::string master_address = resolved == master.resolves.end() ? "" : first_ipv4(resolved->second);
  std::optional<CommonInterface> first;
  for (const auto& interface : master.interfaces) {
    auto common = interface_on_all(in, interface.name);
    if (!common) continue;
    if (interface.address == master_address) return common;
    if (!first) first = common;
  }
  return first;
}

void check_network(const CheckInput& in, Findings& out) {
  if (auto common = find_common_interface(in)) {
    std::string where;
    for (std::size_t i = 0; i < in.size(); ++i)
      where += fmt::format("\n  {:<16} {}", in.names[i], common->addresses[i]);
    out.push_back({Severity::ok, "network", "",
                   fmt::format("{} is up on every node, on one subnet ({}.0/24 assumed):{}", common->name,
                               ipv4_prefix24(common->addresses[0]), where),
                   fmt::format("export NCCL_SOCKET_IFNAME={0} GLOO_SOCKET_IFNAME={0}", common->name)});
    return;
  }
  std::string table;
  for (std::size_t i = 0; i < in.size(); ++i) {
    table += fmt::format("\n  {:<16} {}", in.names[i], describe_interfaces(in.facts[i]));
  }
  out.push_back(
      {Severity::error, "network", "",
       fmt::format("no interface has the same name, is up and is on one subnet on every node; NCCL and "
                   "gloo may pick one the other nodes cannot reach:{}",
                   table),
       "connect the nodes on one network with the same interface name (or rename it with a udev rule), "
       "then export NCCL_SOCKET_IFNAME=<iface> GLOO_SOCKET_IFNAME=<iface>"});
}

void check_infiniband(const CheckInput& in, Findings& out) {
  std::vector<std::size_t> without;
  std::set<std::string> common;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& devices = in.facts[i].infiniband;
    if (devices.empty()) without.push_back(i);
    std::set<std::string> mine(devices.begin(), devices.end());
    if (i == 0) {
      common = mine;
    } else {
      std::erase_if(common, [&](const std::string& device) { return !mine.count(device); });
    }
  }
  if (!in.any_gpus()) {
    out.push_back(
        {Severity::ok, "infiniband", "", "no GPUs: torch.distributed will use gloo over TCP (CPU)", ""});
  } else if (without.size() == in.size()) {
    out.push_back({Severity::warning, "infiniband", "",
                   "no InfiniBand/RoCE device on any node: NCCL will use TCP sockets",
                   "fine for small jobs; for bandwidth, install rdma-core and the HCA driver (mlx5_ib) where "
                   "there are HCAs"});
  } else if (!without.empty()) {
    out.push_back(
        {Severity::warning, "infiniband", without.size() == 1 ? in.names[without[0]] : "",
         fmt::format("no InfiniBand/RoCE device on {}: NCCL will use TCP sockets for the whole job",
                     node_list(in, without)),
         fmt::format("load the HCA driver on {} (modprobe mlx5_ib, rdma-core), or export NCCL_IB_DISABLE=1",
                     node_list(in, without))});
  } else if (common.empty()) {
    out.push_back({Severity::warning, "infiniband", "",
                   "every node has InfiniBand devices, but no device name is on all",
                   "export NCCL_IB_HCA=<the HCAs of each node> per node (or name them alike)"});
  } else {
    out.push_back({Severity::ok, "infiniband", "",
                   fmt::format("InfiniBand on every node: {}", fmt::join(common, ", ")),
                   fmt::format("export NCCL_IB_HCA={}", fmt::join(common, ","))});
  }
}

}  // namespace muster::doctor::detail
