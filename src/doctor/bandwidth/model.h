// The model of `muster doctor --bandwidth`: which directed links are measured in which round, what one
// measurement is (the line `muster node bw` prints for the link it sent on), and everything measured, with each
// node's interface as its facts report it. Pure: the head drives the rounds (bandwidth/measure.cc), the
// node side is bandwidth/probe.h, the verdict bandwidth/verdict.h, the presentation bandwidth/table.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/node/node_facts.h"
#include "util/result.h"

namespace muster::doctor {

// ring: node i sends to node i+1 (and the last to the first), all N links at once: one round, every node sends
// once and receives once. pairs: every ordered pair, in rounds of disjoint pairs that stream both ways at once
// (a round-robin tournament): N-1 rounds for an even N, N for an odd one.
enum class BandwidthMode { ring, pairs };
const char* bandwidth_mode_name(BandwidthMode mode);
Result<BandwidthMode> parse_bandwidth_mode(std::string_view text);

struct Link {
  std::size_t from = 0;
  std::size_t to = 0;
  bool operator==(const Link&) const = default;
};
inline bool touches(const Link& link, std::size_t node) { return link.from == node || link.to == node; }

// The rounds for `nodes` nodes; in a round no node sends twice or receives twice. Empty below 2 nodes.
std::vector<std::vector<Link>> bandwidth_rounds(std::size_t nodes, BandwidthMode mode);

// One link's measurement. The receiver counts the bytes that arrive after the warm-up (TCP slow start, a
// shaper's burst bucket) until the sender stops; the sender times small ping-pongs before streaming.
struct LinkSample {
  bool ok = false;
  double mbps = 0;      // goodput, 10^6 bits per second
  int64_t bytes = 0;    // counted after the warm-up
  double seconds = 0;   // over which `bytes` arrived
  double rtt_us = -1;   // median TCP round trip of 1-byte ping-pongs; -1 unknown
  std::string error;    // why the link could not be measured (ok == false)
};

// One line `bw ok mbps=941.20 bytes=235300000 seconds=2.000 rtt_us=85` or `bw error <why>`. Unknown keys are
// ignored (newer nodes may add some).
Result<LinkSample> parse_link_sample(std::string_view line);
std::string format_link_sample(const LinkSample& sample);
// Every `bw` line of a node command's output, in order (one per peer it sent to); other lines are skipped, a
// malformed `bw` line becomes a sample with its parse error.
std::vector<LinkSample> parse_link_samples(std::string_view output);

// A rate as the report and the findings show it: "941 Mbit/s", "9.41 Gbit/s", "95.2 Mbit/s".
std::string format_rate(double mbps);

// A node's side of its links: the interface holding the address peers connect to, from its facts.
struct NodeInterface {
  std::string name;         // "eth0"; empty when no interface holds the address
  int64_t speed_mbps = -1;  // /sys/class/net/<if>/speed; -1 unknown
  bool physical = false;    // a NIC (not a veth, bridge or tunnel): its speed is a real line rate
};
NodeInterface interface_holding(const NodeFacts& facts, const std::string& address);

struct BandwidthResult {
  BandwidthMode mode = BandwidthMode::ring;
  double seconds = 0;  // streaming time per link, after the warm-up
  std::vector<Link> links;
  std::vector<LinkSample> samples;       // samples[k] measured links[k]
  std::vector<NodeInterface> interfaces; // per node
};

}  // namespace muster::doctor
