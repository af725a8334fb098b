#include "doctor/bandwidth/measure.h"

#include <fmt/format.h>

#include "doctor/bandwidth/probe.h"
#include "doctor/probe_token.h"
#include "head/node_op.h"
#include "head/node_runs.h"

namespace muster::doctor {
namespace {

constexpr int kPickTimeoutMs = 15'000;
constexpr int kRoundSlackMs = 8'000;  // connect (5 s at most), ping-pongs, the receiver's report

std::string address_of(head::AgentPool& pool, size_t node) {
  const std::string& address = pool.hello(node).ssh_addr;
  return address.empty() ? "127.0.0.1" : address;
}

// Every node's port for this test; 0 where a node could not pick one (its incoming links then fail).
Result<std::vector<int>> pick_ports(head::AgentPool& pool) {
  auto runs = head::run_on_nodes(pool, [](size_t) {
    BandwidthProbeOp op;
    op.pick_port = true;
    return head::node_op_command(op);
  }, kPickTimeoutMs);
  if (!runs) return runs.error();
  std::vector<int> ports(runs->size(), 0);
  for (size_t node = 0; node < runs->size(); ++node) {
    if ((*runs)[node].ok()) std::sscanf((*runs)[node].out.c_str(), "port %d", &ports[node]);
  }
  return ports;
}

// Node `node`'s part of a round: serve the links that end at it, send (in order) on those that start at it.
head::NodeCommand round_command(head::AgentPool& pool, const std::vector<Link>& round,
                                const std::vector<int>& ports, double seconds, double warmup, int timeout_ms,
                                const std::string& token, size_t node) {
  BandwidthProbeOp op;
  op.probe.seconds = seconds;
  op.probe.warmup = warmup;
  op.probe.timeout_ms = timeout_ms;
  int incoming = 0;
  for (const auto& link : round) {
    if (link.to == node) ++incoming;
    if (link.from == node) op.to.push_back(fmt::format("{}:{}", address_of(pool, link.to), ports[link.to]));
  }
  if (incoming > 0) {
    op.probe.listen_port = ports[node];
    op.probe.accept = incoming;
  }
  if (incoming == 0 && op.to.empty()) return head::NodeCommand{{"true"}, {}};  // not in this round (the odd node out)
  return head::node_op_command(op, {std::string(kProbeTokenEnv) + "=" + token});
}

// The samples of a round, in the order of its links: the k-th link from a node is its k-th `bw` line.
std::vector<LinkSample> round_samples(const std::vector<Link>& round,
                                             const std::vector<head::NodeRun>& runs) {
  std::vector<LinkSample> samples;
  std::vector<size_t> seen(runs.size(), 0);
  for (const auto& link : round) {
    const head::NodeRun& run = runs[link.from];
    auto lines = parse_link_samples(run.out);
    size_t index = seen[link.from]++;
    if (index < lines.size()) {
      samples.push_back(lines[index]);
      continue;
    }
    std::string why = !run.error.empty() ? run.error : !run.err.empty() ? run.err : "no result from the node";
    while (!why.empty() && why.back() == '\n') why.pop_back();
    samples.push_back(LinkSample{.error = why});
  }
  return samples;
}

Result<std::vector<LinkSample>> run_round(head::AgentPool& pool, const std::vector<Link>& round,
                                          const std::vector<int>& ports, double seconds, double warmup,
                                          const std::string& token) {
  int timeout_ms = static_cast<int>((warmup + seconds) * 1000) + kRoundSlackMs;
  auto runs = head::run_on_nodes(pool, [&](size_t node) {
    return round_command(pool, round, ports, seconds, warmup, timeout_ms, token, node);
  }, timeout_ms + 2000);
  if (!runs) return runs.error();
  return round_samples(round, *runs);
}

// Every link of the test, for the latency round (no streaming, so queues are empty).
std::vector<Link> all_links(const std::vector<std::vector<Link>>& rounds) {
  std::vector<Link> links;
  for (const auto& round : rounds) links.insert(links.end(), round.begin(), round.end());
  return links;
}

}  // namespace

Result<BandwidthResult> measure_bandwidth(head::AgentPool& pool, const std::vector<NodeFacts>& facts,
                                                  const BandwidthOptions& options) {
  BandwidthResult result;
  result.mode = options.mode;
  result.seconds = options.seconds;
  for (size_t node = 0; node < pool.size(); ++node) {
    result.interfaces.push_back(node < facts.size() ? interface_holding(facts[node], address_of(pool, node))
                                                    : NodeInterface{});
  }
  auto ports = pick_ports(pool);
  if (!ports) return ports.error();
  auto rounds = bandwidth_rounds(pool.size(), options.mode);
  std::string token = new_probe_token();  // one per run: only this run's peers are served (probe_token.h)
  auto latency = run_round(pool, all_links(rounds), *ports, 0, 0, token);
  if (!latency) return latency.error();
  for (const auto& round : rounds) {
    auto samples = run_round(pool, round, *ports, options.seconds, options.warmup, token);
    if (!samples) return samples.error();
    result.links.insert(result.links.end(), round.begin(), round.end());
    result.samples.insert(result.samples.end(), samples->begin(), samples->end());
  }
  // The round trip of an idle link: while streaming, queues (a shaper's, the NIC's) add their delay.
  for (size_t k = 0; k < result.samples.size(); ++k) {
    if ((*latency)[k].ok) result.samples[k].rtt_us = (*latency)[k].rtt_us;
  }
  return result;
}

}  // namespace muster::doctor
