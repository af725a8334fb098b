#include "doctor/bandwidth/table.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::doctor {
namespace {

size_t widest(const std::vector<std::string>& names) {
  size_t width = 0;
  for (const auto& name : names) width = std::max(width, name.size());
  return width;
}

// "941", "95.2", "fail"; `!` marks a slow link, a blank keeps the columns aligned.
std::string cell(const LinkSample& sample, bool slow) {
  if (!sample.ok) return "fail ";
  std::string figure = sample.mbps < 100 ? fmt::format("{:.1f}", sample.mbps) : fmt::format("{:.0f}", sample.mbps);
  return figure + (slow ? "!" : " ");
}

std::string link_list(const std::vector<std::string>& names, const BandwidthResult& result,
                      const BandwidthVerdict& verdict) {
  size_t width = 2 * widest(names) + 3;
  std::string out = fmt::format("{:<{}}  {:>8}  {:>10}", "link", width, "Mbit/s", "round trip");
  for (size_t k = 0; k < result.links.size(); ++k) {
    const Link& link = result.links[k];
    const LinkSample& sample = result.samples[k];
    std::string rtt = sample.ok && sample.rtt_us >= 0 ? fmt::format("{:.0f} µs", sample.rtt_us) : "-";
    out += fmt::format("\n{:<{}}  {:>8}  {:>10}", names[link.from] + " → " + names[link.to], width,
                       cell(sample, verdict.slow[k]), rtt);
  }
  return out;
}

std::string link_matrix(const std::vector<std::string>& names, const BandwidthResult& result,
                        const BandwidthVerdict& verdict) {
  size_t first = std::max<size_t>(widest(names), 11), width = std::max<size_t>(widest(names), 6) + 1;
  std::vector<std::string> cells(names.size() * names.size(), "· ");
  for (size_t i = 0; i < names.size(); ++i) cells[i * names.size() + i] = "- ";
  for (size_t k = 0; k < result.links.size(); ++k) {
    cells[result.links[k].from * names.size() + result.links[k].to] = cell(result.samples[k], verdict.slow[k]);
  }
  std::string out = fmt::format("{:<{}}", "Mbit/s to →", first);
  for (const auto& name : names) out += fmt::format(" {:>{}}", name + " ", width);
  for (size_t from = 0; from < names.size(); ++from) {
    out += fmt::format("\n{:<{}}", names[from], first);
    for (size_t to = 0; to < names.size(); ++to) out += fmt::format(" {:>{}}", cells[from * names.size() + to], width);
  }
  return out;
}

}  // namespace

std::string format_bandwidth_table(const std::vector<std::string>& names, const BandwidthResult& result,
                                   const BandwidthVerdict& verdict) {
  return result.mode == BandwidthMode::pairs ? link_matrix(names, result, verdict)
                                             : link_list(names, result, verdict);
}

nlohmann::json bandwidth_json(const std::vector<std::string>& names, const BandwidthResult& result) {
  BandwidthVerdict verdict = judge_bandwidth(result, names.size());
  nlohmann::json nodes = nlohmann::json::array(), links = nlohmann::json::array();
  for (size_t node = 0; node < names.size(); ++node) {
    NodeInterface nic = node < result.interfaces.size() ? result.interfaces[node] : NodeInterface{};
    bool slow = std::find(verdict.slow_nodes.begin(), verdict.slow_nodes.end(), node) != verdict.slow_nodes.end();
    nodes.push_back({{"name", names[node]}, {"interface", nic.name}, {"speed_mbps", nic.speed_mbps},
                     {"physical", nic.physical}, {"slow", slow}});
  }
  for (size_t k = 0; k < result.links.size(); ++k) {
    const LinkSample& sample = result.samples[k];
    links.push_back({{"from", names[result.links[k].from]}, {"to", names[result.links[k].to]},
                     {"ok", sample.ok}, {"mbps", sample.mbps}, {"rtt_us", sample.rtt_us},
                     {"slow", verdict.slow[k]}, {"error", sample.error}});
  }
  return {{"mode", bandwidth_mode_name(result.mode)}, {"seconds", result.seconds},
          {"reference_mbps", verdict.reference_mbps}, {"nodes", nodes}, {"links", links}};
}

}  // namespace muster::doctor
