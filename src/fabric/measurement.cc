// Reading the sweep's result line (measurement.h).
#include "fabric/measurement.h"

namespace muster::fabric {

Result<FabricMeasurement> parse_measurement(std::string_view rank0_log) {
  size_t at = std::string_view::npos;
  for (size_t pos = rank0_log.find(kResultMarker); pos != std::string_view::npos;
       pos = rank0_log.find(kResultMarker, pos + 1)) {
    if (pos == 0 || rank0_log[pos - 1] == '\n') at = pos;
  }
  if (at == std::string_view::npos) {
    return make_error(ErrorKind::io, "rank 0 printed no result line (\"{}...\")", kResultMarker);
  }
  size_t end = rank0_log.find('\n', at);
  std::string_view line = rank0_log.substr(at + kResultMarker.size(),
                                           end == std::string_view::npos ? std::string_view::npos
                                                                         : end - at - kResultMarker.size());
  try {
    auto json = nlohmann::json::parse(line);
    FabricMeasurement m;
    m.backend = json.at("backend").get<std::string>();
    for (const auto& p : json.at("ring")) {
      m.ring.push_back({p.at("bytes").get<long long>(), p.at("seconds").get<double>(), p.at("busbw_gbps").get<double>()});
    }
    for (const auto& p : json.at("pairs")) {
      m.pairs.push_back({p.at("a").get<int>(), p.at("b").get<int>(), p.at("seconds").get<double>(), p.at("gbps").get<double>()});
    }
    for (const auto& n : json.at("nodes")) {
      m.nodes.push_back({n.at("host").get<std::string>(), n.at("nic").get<std::string>(),
                         n.at("nic_gbps").get<double>(), n.at("ib_gbps").get<double>()});
    }
    return m;
  } catch (const std::exception& e) {
    return make_error(ErrorKind::io, "rank 0's result line is not what muster wrote: {}", e.what());
  }
}

nlohmann::json measurement_json(const FabricMeasurement& m, const std::vector<std::string>& names) {
  auto name = [&](int rank) { return rank >= 0 && static_cast<size_t>(rank) < names.size() ? names[rank] : ""; };
  nlohmann::json out = {{"backend", m.backend}};
  auto& ring = out["ring"] = nlohmann::json::array();
  for (const auto& p : m.ring) ring.push_back({{"bytes", p.bytes}, {"seconds", p.seconds}, {"busbw_gbps", p.busbw_gbps}});
  auto& pairs = out["pairs"] = nlohmann::json::array();
  for (const auto& p : m.pairs) {
    pairs.push_back({{"a", name(p.a)}, {"b", name(p.b)}, {"seconds", p.seconds}, {"gbps", p.gbps}});
  }
  auto& nodes = out["nodes"] = nlohmann::json::array();
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const auto& n = m.nodes[i];
    nodes.push_back({{"name", name(static_cast<int>(i))}, {"host", n.host}, {"nic", n.nic}, {"nic_gbps", n.nic_gbps},
                     {"ib_gbps", n.ib_gbps}});
  }
  return out;
}

}  // namespace muster::fabric
