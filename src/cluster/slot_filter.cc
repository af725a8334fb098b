#include "cluster/slot_filter.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "cluster/hostfile.h"
#include "cluster/hostlist.h"
#include "cluster/slot_filter_syntax.h"
#include "util/edit_distance.h"

namespace muster::cluster {
namespace {

using SlotMarks = std::vector<std::vector<bool>>;  // [node][slot]: named by the filter

Result<void> check_count(int value, std::string_view name) {
  if (value == -1 || value >= 1) return {};
  return make_error(ErrorKind::usage, "{} must be at least 1 (or -1 for all), found {}", name, value);
}

Result<void> check_selection(const SlotSelection& selection) {
  if (!selection.include.empty() && !selection.exclude.empty()) {
    return make_error(ErrorKind::usage, "--include and --exclude cannot be used together; give one of them");
  }
  if (auto valid = check_count(selection.num_nodes, "num_nodes"); !valid) return valid;
  if (auto valid = check_count(selection.nproc_per_node, "nproc_per_node"); !valid) return valid;
  if (selection.default_slots < 1 || selection.default_slots > kMaxSlotsPerHost) {
    return make_error(ErrorKind::usage, "default_slots must be from 1 to {}, found {}", kMaxSlotsPerHost,
                      selection.default_slots);
  }
  return {};
}

std::vector<NodeSlots> every_slot(const std::vector<Host>& hosts, int default_slots) {
  std::vector<NodeSlots> nodes;
  for (const Host& host : hosts) {
    int count = host.slots == -1 ? default_slots : std::max(host.slots, 0);
    NodeSlots node{.host = host, .slots = std::vector<int>(static_cast<size_t>(count))};
    std::iota(node.slots.begin(), node.slots.end(), 0);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

Error unknown_host(const std::vector<NodeSlots>& nodes, const SlotFilterEntry& entry,
                   const SlotFilter& filter) {
  std::vector<std::string> names;
  for (const NodeSlots& node : nodes) names.push_back(node.host.name);
  if (auto guess = closest_match(entry.host, names)) {
    return filter.error_at(entry.offset,
                           fmt::format("unknown host '{}'; did you mean '{}'?", entry.host, *guess));
  }
  return filter.error_at(entry.offset, fmt::format("unknown host '{}' (the hosts are {})", entry.host,
                                                   compress_hostlist(names)));
}

std::string describe_slots(size_t count) {
  if (count == 0) return "no slots";
  if (count == 1) return "only slot 0";
  return fmt::format("slots 0-{}", count - 1);
}

// Marks what `entry` names on `node`; an error if it names a slot the node does not have.
Result<void> mark_entry(std::vector<bool>& marks, const SlotFilterEntry& entry, const SlotFilter& filter) {
  if (entry.slots.empty()) std::fill(marks.begin(), marks.end(), true);
  for (size_t i = 0; i < entry.slots.size(); ++i) {
    auto slot = static_cast<size_t>(entry.slots[i]);
    if (slot >= marks.size()) {
      return filter.error_at(entry.slot_offsets[i], fmt::format("no slot {} on host '{}', which has {}", slot,
                                                                entry.host, describe_slots(marks.size())));
    }
    marks[slot] = true;
  }
  return {};
}

Result<SlotMarks> mark_slots(const std::vector<NodeSlots>& nodes, const SlotFilter& filter) {
  SlotMarks marks;
  for (const NodeSlots& node : nodes) marks.emplace_back(node.slots.size(), false);
  for (const SlotFilterEntry& entry : filter.entries) {
    auto node = std::find_if(nodes.begin(), nodes.end(),
                             [&](const NodeSlots& n) { return n.host.name == entry.host; });
    if (node == nodes.end()) return unknown_host(nodes, entry, filter);
    auto& node_marks = marks[static_cast<size_t>(node - nodes.begin())];
    if (auto marked = mark_entry(node_marks, entry, filter); !marked) return marked.error();
  }
  return marks;
}

// The slots whose mark is `keep`, dropping nodes left without any.
std::vector<NodeSlots> keep_marked(const std::vector<NodeSlots>& nodes, const SlotMarks& marks, bool keep) {
  std::vector<NodeSlots> kept;
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeSlots node{.host = nodes[i].host, .slots = {}};
    for (int slot : nodes[i].slots) {
      if (marks[i][static_cast<size_t>(slot)] == keep) node.slots.push_back(slot);
    }
    if (!node.slots.empty()) kept.push_back(std::move(node));
  }
  return kept;
}

Result<std::vector<NodeSlots>> apply_filter(const std::vector<NodeSlots>& nodes, std::string_view text,
                                            std::string_view flag, bool include) {
  auto filter = parse_slot_filter(text, flag);
  if (!filter) return filter.error();
  auto marks = mark_slots(nodes, *filter);
  if (!marks) return marks.error();
  auto kept = keep_marked(nodes, *marks, include);
  if (kept.empty()) return filter->error_at(0, "leaves no slots to run on");
  return kept;
}

Result<std::vector<NodeSlots>> first_nodes(std::vector<NodeSlots> nodes, int num_nodes) {
  if (num_nodes == -1) return nodes;
  if (static_cast<size_t>(num_nodes) > nodes.size()) {
    return make_error(ErrorKind::usage, "asked for {} nodes, but only {} are available", num_nodes,
                      nodes.size());
  }
  nodes.resize(static_cast<size_t>(num_nodes));
  return nodes;
}

Result<std::vector<NodeSlots>> first_slots(std::vector<NodeSlots> nodes, int nproc_per_node) {
  if (nproc_per_node == -1) return nodes;
  for (NodeSlots& node : nodes) {
    if (static_cast<size_t>(nproc_per_node) > node.slots.size()) {
      return make_error(ErrorKind::usage, "asked for {} processes per node, but host '{}' has {} slot{}",
                        nproc_per_node, node.host.name, node.slots.size(), node.slots.size() == 1 ? "" : "s");
    }
    node.slots.resize(static_cast<size_t>(nproc_per_node));
  }
  return nodes;
}

Result<std::vector<NodeSlots>> apply_filters(std::vector<NodeSlots> nodes, const SlotSelection& selection) {
  if (!selection.include.empty()) return apply_filter(nodes, selection.include, "--include", true);
  if (!selection.exclude.empty()) return apply_filter(nodes, selection.exclude, "--exclude", false);
  std::erase_if(nodes, [](const NodeSlots& node) { return node.slots.empty(); });
  return nodes;
}

}  // namespace

Result<std::vector<NodeSlots>> select_slots(const std::vector<Host>& hosts, const SlotSelection& selection) {
  if (auto valid = check_selection(selection); !valid) return valid.error();
  auto filtered = apply_filters(every_slot(hosts, selection.default_slots), selection);
  if (!filtered) return filtered.error();
  if (filtered->empty()) return make_error(ErrorKind::usage, "no hosts with slots to run on");
  auto chosen = first_nodes(std::move(*filtered), selection.num_nodes);
  if (!chosen) return chosen.error();
  return first_slots(std::move(*chosen), selection.nproc_per_node);
}

}  // namespace muster::cluster
