#include "doctor/checks/checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cassert>
#include <charconv>

#include "cluster/node_set.h"
#include "doctor/checks/support.h"

namespace muster::doctor {
namespace detail {

bool CheckInput::any_gpus() const {
  return std::any_of(facts.begin(), facts.end(), [](const NodeFacts& node) { return !node.gpus.empty(); });
}

std::vector<ValueGroup> group_values(const std::vector<std::optional<std::string>>& values,
                                     std::size_t master) {
  std::vector<ValueGroup> groups;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i]) continue;
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const ValueGroup& g) { return g.value == *values[i]; });
    if (group == groups.end()) {
      groups.push_back({*values[i], {i}});
    } else {
      group->nodes.push_back(i);
    }
  }
  auto holds_master = [&](const ValueGroup& g) {
    return std::find(g.nodes.begin(), g.nodes.end(), master) != g.nodes.end();
  };
  std::stable_sort(groups.begin(), groups.end(), [&](const ValueGroup& a, const ValueGroup& b) {
    if (a.nodes.size() != b.nodes.size()) return a.nodes.size() > b.nodes.size();
    return holds_master(a) && !holds_master(b);
  });
  return groups;
}

std::string node_list(const CheckInput& in, const std::vector<std::size_t>& nodes) {
  std::vector<std::string> names;
  for (std::size_t i : nodes) names.push_back(in.names[i]);
  return cluster::fold_nodes(names);
}

bool is_ipv4(std::string_view address) {
  int octets = 0;
  std::size_t pos = 0;
  while (pos <= address.size()) {
    std::size_t end = address.find('.', pos);
    if (end == std::string_view::npos) end = address.size();
    int value = -1;
    auto [ptr, ec] = std::from_chars(address.data() + pos, address.data() + end, value);
    if (ec != std::errc() || ptr != address.data() + end || end == pos || value > 255) return false;
    ++octets;
    pos = end + 1;
  }
  return octets == 4;
}

std::string first_ipv4(const std::vector<std::string>& addresses) {
  for (const auto& address : addresses) {
    if (is_ipv4(address)) return address;
  }
  return "";
}

bool is_loopback_address(std::string_view address) {
  return address == "::1" || (is_ipv4(address) && address.substr(0, 4) == "127.");
}

std::string ipv4_prefix24(std::string_view address) {
  auto last_dot = address.rfind('.');
  return last_dot == std::string_view::npos ? std::string(address) : std::string(address.substr(0, last_dot));
}

std::string format_bytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.4g} {}", value, kUnits[unit]);
}

}  // namespace detail

std::vector<Finding> run_checks(const std::vector<std::string>& names, const std::vector<NodeFacts>& facts,
                                const CheckOptions& options) {
  std::vector<Finding> out;
  assert(names.size() == facts.size());
  if (names.empty()) return out;
  const detail::CheckInput in{names, facts, options};
  for (auto check :
       {detail::check_hostnames, detail::check_resolution, detail::check_loopback, detail::check_containers, detail::check_versions,
        detail::check_paths, detail::check_network, detail::check_infiniband, detail::check_shm,
        detail::check_memlock, detail::check_gpus, detail::check_clock}) {
    check(in, out);
  }
  return out;
}

}  // namespace muster::doctor
