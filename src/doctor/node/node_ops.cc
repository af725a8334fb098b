#include "doctor/node/node_ops.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "doctor/bandwidth/probe.h"
#include "doctor/probe_token.h"

namespace muster::doctor {

Result<int> FactsOp::run(const FactsOp& op) {
  auto found = doctor::gather(op.gather);
  MarkerOptions markers = op.markers;
  if (op.mark_caches) {
    for (const auto& cache : found.caches) markers.cache_dirs.push_back(cache.probe);
  }
  write_markers(markers);
  fmt::print("{}\n", nlohmann::json(found).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return 0;
}

Result<int> CrossOp::run(const CrossOp& op) {
  CrossOptions cross = op.cross;
  if (!op.master_connect.empty()) {
    auto peer = parse_probe_peer(op.master_connect);
    if (!peer) return peer.error();
    cross.master_host = peer->host;
    cross.master_port = peer->port;
  }
  cross.token = probe_token_from_environment();
  fmt::print("{}", run_cross_checks(cross));
  return 0;
}

}  // namespace muster::doctor
