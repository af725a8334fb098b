// `muster doctor --bandwidth` on a connected pool: the rounds of doctor/bandwidth/model.h driven through the agents
// (`muster node bw` on every node of a round at once, through head::run_on_nodes), each link streaming for a
// fixed time, so the whole test is bounded: ring ≈ warm-up + seconds, pairs ≈ (N-1) × that, plus start-up.
#pragma once

#include <string>
#include <vector>

#include "doctor/bandwidth/model.h"
#include "doctor/node/node_facts.h"
#include "head/agent_pool.h"
#include "util/result.h"

namespace muster::doctor {

struct BandwidthOptions {
  BandwidthMode mode = BandwidthMode::ring;
  double seconds = 2;    // streaming time per link, after the warm-up
  double warmup = 0.25;  // not counted: TCP slow start, a shaper's burst
};

// facts[i] (for the interfaces) belongs to pool node i. Peers connect to the address the head reached each
// node on (127.0.0.1 for a local node). Fails only for the head's own reasons (an interrupt); a link that could
// not be measured has an error sample.
Result<BandwidthResult> measure_bandwidth(head::AgentPool& pool, const std::vector<NodeFacts>& facts,
                                                  const BandwidthOptions& options);

}  // namespace muster::doctor
