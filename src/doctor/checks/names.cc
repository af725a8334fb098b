// Who is who: unique hostnames, every node resolving every node name to the same address, and no node
// resolving its own name to loopback (Debian's `127.0.1.1 <hostname>` line makes gloo/NCCL advertise
// 127.0.1.1).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "doctor/checks/support.h"

namespace muster::doctor::detail {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// The first IPv4 address node `i` resolves `name` to; nullopt when it did not say (no resolution facts at
// all),
// "" when it tried and failed.
std::optional<std::string> resolved(const CheckInput& in, std::size_t i, const std::string& name) {
  const auto& resolves = in.facts[i].resolves;
  if (resolves.empty()) return std::nullopt;
  auto it = resolves.find(name);
  return it == resolves.end() ? "" : first_ipv4(it->second);
}

std::string interface_hint(const CheckInput& in, std::size_t node) {
  if (auto common = find_common_interface(in)) return common->name;
  for (const auto& interface : in.facts[node].interfaces) {
    if (interface.up && !interface.loopback && is_ipv4(interface.address)) return interface.name;
  }
  return "<iface>";
}

}  // namespace

void check_hostnames(const CheckInput& in, Findings& out) {
  std::map<std::string, std::vector<std::size_t>> by_hostname;  // hostnames are case-insensitive
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!in.facts[i].hostname.empty()) by_hostname[lower(in.facts[i].hostname)].push_back(i);
  }
  bool clean = true;
  for (const auto& [hostname, nodes] : by_hostname) {
    if (nodes.size() < 2) continue;
    clean = false;
    std::vector<std::size_t> rename(nodes.begin() + 1, nodes.end());
    out.push_back(
        {Severity::error, "hostnames", "",
         fmt::format("{} all have the hostname \"{}\"; torch.distributed, NCCL and the launcher tell "
                     "nodes apart by hostname",
                     node_list(in, nodes), in.facts[nodes[0]].hostname),
         fmt::format("on {}: sudo hostnamectl set-hostname <unique name>", node_list(in, rename))});
  }
  if (clean) out.push_back({Severity::ok, "hostnames", "", "every node has its own hostname", ""});
}

void check_resolution(const CheckInput& in, Findings& out) {
  bool clean = true;
  for (std::size_t target = 0; target < in.size(); ++target) {
    const std::string& name = in.names[target];
    std::vector<std::optional<std::string>> addresses(in.size());
    std::vector<std::size_t> failing;
    for (std::size_t i = 0; i < in.size(); ++i) {
      auto address = resolved(in, i, name);
      if (!address) continue;
      if (address->empty()) {
        failing.push_back(i);
      } else if (!(i == target && is_loopback_address(*address))) {  // self-loopback: check_loopback's
        addresses[i] = *address;
      }
    }
    if (!failing.empty()) {
      clean = false;
      out.push_back({Severity::error, "resolution", failing.size() == 1 ? in.names[failing[0]] : "",
                     fmt::format("{} cannot resolve {} to an IPv4 address", node_list(in, failing), name),
                     "muster setup hosts (writes every node name into /etc/hosts on every node)"});
    }
    auto groups = group_values(addresses, in.master());
    if (groups.size() < 2) continue;
    clean = false;
    std::string table;
    for (const auto& group : groups)
      table += fmt::format("\n  {:<16} on {}", group.value, node_list(in, group.nodes));
    std::vector<std::size_t> odd;
    for (std::size_t g = 1; g < groups.size(); ++g)
      odd.insert(odd.end(), groups[g].nodes.begin(), groups[g].nodes.end());
    std::sort(odd.begin(), odd.end());
    out.push_back({Severity::error, "resolution", odd.size() == 1 ? in.names[odd[0]] : "",
                   fmt::format("nodes disagree on the address of {}:{}", name, table),
                   fmt::format("on {}: muster setup hosts (or fix /etc/hosts / DNS there to {} {})",
                               node_list(in, odd), groups[0].value, name)});
  }
  if (clean)
    out.push_back(
        {Severity::ok, "resolution", "", "every node resolves every node name to the same address", ""});
}

void check_loopback(const CheckInput& in, Findings& out) {
  if (in.size() < 2) return;  // one node talks to itself: loopback is fine
  bool clean = true;
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::vector<std::string> own = {in.names[i]};
    if (!in.facts[i].hostname.empty() && in.facts[i].hostname != in.names[i])
      own.push_back(in.facts[i].hostname);
    for (const auto& name : own) {
      auto address = resolved(in, i, name);
      if (!address || !is_loopback_address(*address)) continue;
      clean = false;
      std::string iface = interface_hint(in, i);
      out.push_back(
          {Severity::error, "loopback", in.names[i],
           fmt::format("{} resolves its own name {} to {}: gloo and NCCL would advertise a loopback "
                       "address and the other nodes cannot connect",
                       in.names[i], name, *address),
           fmt::format("remove the `{} {}` line from /etc/hosts on {} (muster setup hosts --fix-loopback), "
                       "or export GLOO_SOCKET_IFNAME={} NCCL_SOCKET_IFNAME={}",
                       *address, name, in.names[i], iface, iface)});
      break;
    }
  }
  if (clean)
    out.push_back({Severity::ok, "loopback", "", "no node resolves its own name to a loopback address", ""});
}

}  // namespace muster::doctor::detail
