#include "launch/node_roster.h"

#include <algorithm>

#include <fmt/format.h>

#include "cluster/hostlist.h"

namespace muster::launch {

NodeRoster::NodeRoster(std::vector<std::string> names, int min_nodes, int max_nodes)
    : names_(std::move(names)),
      min_(std::max(1, min_nodes)),
      max_(std::max(min_, max_nodes)),
      connected_(names_.size(), false),
      excluded_(names_.size()) {}

void NodeRoster::set_connected(size_t node, bool connected) { connected_[node] = connected; }

void NodeRoster::exclude(size_t node, std::string reason, int64_t until_ms, int attempt) {
  excluded_[node] = Exclusion{std::move(reason), until_ms, attempt};
}

std::vector<size_t> NodeRoster::expire(int64_t now_ms) {
  std::vector<size_t> back;
  for (size_t node = 0; node < excluded_.size(); ++node) {
    if (!excluded_[node] || excluded_[node]->until_ms > now_ms) continue;
    excluded_[node].reset();
    back.push_back(node);
  }
  return back;
}

Result<std::vector<size_t>> NodeRoster::choose() const {
  std::vector<size_t> chosen;
  for (size_t node = 0; node < names_.size() && chosen.size() < static_cast<size_t>(max_); ++node) {
    if (usable(node)) chosen.push_back(node);
  }
  if (chosen.size() >= static_cast<size_t>(min_)) return chosen;
  std::vector<std::string> out;
  for (size_t node = 0; node < names_.size(); ++node) {
    if (!usable(node)) out.push_back(names_[node] + ": " + (excluded_[node] ? excluded_[node]->reason : "not connected"));
  }
  std::string minimum = min_ == max_ ? fmt::format("{}", min_) : fmt::format("at least {}", min_);
  return make_error(ErrorKind::unreachable, "{} usable node{} left, the job needs {}: {}", chosen.size(),
                    chosen.size() == 1 ? "" : "s", minimum, fmt::join(out, "; "));
}

std::vector<size_t> NodeRoster::spares(const std::vector<size_t>& chosen) const {
  std::vector<size_t> reserve;
  for (size_t node = 0; node < names_.size(); ++node) {
    if (usable(node) && std::find(chosen.begin(), chosen.end(), node) == chosen.end()) reserve.push_back(node);
  }
  return reserve;
}

std::vector<size_t> NodeRoster::excluded() const {
  std::vector<size_t> out;
  for (size_t node = 0; node < names_.size(); ++node) {
    if (excluded_[node]) out.push_back(node);
  }
  return out;
}

std::string NodeRoster::names(const std::vector<size_t>& nodes) const {
  std::vector<std::string> list;
  for (size_t node : nodes) list.push_back(names_[node]);
  return cluster::compress_hostlist(list);
}

}  // namespace muster::launch
