// The node side of `muster doctor --bandwidth`, run as `muster node bw`: in one round a node serves the peers
// that send to it and sends to (at most) one peer, at the same time, over plain TCP to the address the head
// reached the peer on. Bounded: every wait ends at `timeout_ms` after the start.
//
// On one connection: the sender first presents the run's token (probe_token.h: the receiver closes, and does not
// count, a connection without it, so a stray connection neither counts nor takes a peer's place), then times `pings` 1-byte ping-pongs ('p', echoed), then sends 's' and
// streams for warmup + seconds (not at all in a latency round), then half-closes. The receiver counts only what arrives after the warm-up
// (TCP slow start, a shaper's burst bucket: like iperf3 --omit) until EOF, and answers one line
// "bytes=N us=M". The sender prints the link's figure (format_link_sample, bandwidth/model.h); measured at the
// receiver, so the sender's socket buffer does not inflate it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::doctor {

struct ProbeOptions {
  int listen_port = 0;    // > 0: serve on this port
  int accept = 0;         // connections to serve
  struct Peer {
    std::string host;
    int port = 0;
    bool operator==(const Peer&) const = default;
  };
  std::vector<Peer> to;   // send to each, one after the other
  double seconds = 2;     // streaming time after the warm-up; 0: only the ping-pongs (a latency round)
  double warmup = 0.25;
  int pings = 10;
  int timeout_ms = 15'000;
  std::string token;      // this run's (probe_token.h); connections without it are closed, not served
  bool operator==(const ProbeOptions&) const = default;
};

// `--to HOST:PORT` (the port after the last ':', 1-65535): a usage error naming the text otherwise.
Result<ProbeOptions::Peer> parse_probe_peer(std::string_view text);

// What `muster node bw` prints: a line "bw ok ..." / "bw error ..." per peer sent to, in order, then
// "served K" (if serving). Fails only when it cannot listen.
Result<std::string> run_bandwidth_probe(const ProbeOptions& options);

// `muster node bw --pick-port`: a port free on every address of this node a moment ago, as "port N".
Result<std::string> pick_probe_port();

// `muster node bw` (a node operation, head/node_op.h): one round of run_bandwidth_probe, or pick_probe_port; its
// output printed. The run's token comes from the environment (kProbeTokenEnv).
struct BandwidthProbeOp {
  static constexpr const char* kName = "bw";
  static constexpr const char* kHelp = "one round of doctor's bandwidth test: serve peers, send to one";
  bool pick_port = false;
  ProbeOptions probe;           // its `to` comes from `to`, its token from the environment
  std::vector<std::string> to;  // HOST:PORT
  template <typename Self, typename Visit>
  static void fields(Self& op, Visit& visit) {
    visit(op.pick_port, "--pick-port", "print a free TCP port (`port N`) and exit");
    visit(op.probe.listen_port, "--listen", "serve on this port");
    visit(op.probe.accept, "--accept", "connections to serve");
    visit(op.to, "--to", "send to HOST:PORT (repeatable: one after the other)");
    visit(op.probe.seconds, "--seconds", "streaming time after the warm-up");
    visit(op.probe.warmup, "--warmup", "seconds not counted at the start of the stream");
    visit(op.probe.timeout_ms, "--timeout-ms", "bound on the whole round");
  }
  static Result<int> run(const BandwidthProbeOp& op);
  bool operator==(const BandwidthProbeOp&) const = default;
};

}  // namespace muster::doctor
