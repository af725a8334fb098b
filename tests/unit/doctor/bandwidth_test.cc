#include "doctor/bandwidth/model.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <utility>

#include "doctor/bandwidth/probe.h"
#include "doctor/probe_token.h"
#include "posix/clock.h"
#include "posix/socket.h"
#include "posix/tcp_stream.h"

namespace muster::doctor {
namespace {

// Every ordered pair exactly once, and no node sending or receiving twice in a round.
void expect_tournament(size_t nodes) {
  auto rounds = bandwidth_rounds(nodes, BandwidthMode::pairs);
  EXPECT_EQ(rounds.size(), nodes % 2 ? nodes : nodes - 1) << nodes << " nodes";
  std::set<std::pair<size_t, size_t>> seen;
  for (const auto& round : rounds) {
    std::set<size_t> senders, receivers;
    for (const auto& link : round) {
      EXPECT_NE(link.from, link.to);
      EXPECT_TRUE(senders.insert(link.from).second) << "node " << link.from << " sends twice in a round";
      EXPECT_TRUE(receivers.insert(link.to).second) << "node " << link.to << " receives twice in a round";
      EXPECT_TRUE(seen.insert({link.from, link.to}).second) << link.from << "→" << link.to << " twice";
    }
  }
  EXPECT_EQ(seen.size(), nodes * (nodes - 1));
}

TEST(BandwidthRounds, PairsCoverEveryOrderedPairInDisjointRounds) {
  for (size_t nodes : {2, 3, 4, 5, 8, 9}) expect_tournament(nodes);
}

TEST(BandwidthRounds, RingIsOneRoundOfNextNeighbours) {
  auto rounds = bandwidth_rounds(4, BandwidthMode::ring);
  ASSERT_EQ(rounds.size(), 1u);
  EXPECT_EQ(rounds[0], (std::vector<Link>{{0, 1}, {1, 2}, {2, 3}, {3, 0}}));
  EXPECT_EQ(bandwidth_rounds(2, BandwidthMode::ring)[0], (std::vector<Link>{{0, 1}, {1, 0}}));
  EXPECT_TRUE(bandwidth_rounds(1, BandwidthMode::ring).empty());
}

TEST(BandwidthMode, ParsesNamesAndRejectsOthers) {
  EXPECT_EQ(*parse_bandwidth_mode("pairs"), BandwidthMode::pairs);
  EXPECT_EQ(*parse_bandwidth_mode("ring"), BandwidthMode::ring);
  EXPECT_FALSE(parse_bandwidth_mode("mesh"));
}

TEST(LinkSample, RoundTripsThroughItsLine) {
  LinkSample sample{.ok = true, .mbps = 941.25, .bytes = 235312500, .seconds = 2.0, .rtt_us = 85, .error = ""};
  std::string line = format_link_sample(sample);
  EXPECT_EQ(line, "bw ok mbps=941.25 bytes=235312500 seconds=2.000 rtt_us=85");
  auto parsed = parse_link_sample(line);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->ok);
  EXPECT_DOUBLE_EQ(parsed->mbps, 941.25);
  EXPECT_EQ(parsed->bytes, 235312500);
  EXPECT_DOUBLE_EQ(parsed->rtt_us, 85);
}

TEST(LinkSample, ErrorsUnknownKeysAndGarbage) {
  auto error = parse_link_sample("bw error cannot connect to 10.0.0.3:4000: Connection refused\n");
  ASSERT_TRUE(error);
  EXPECT_FALSE(error->ok);
  EXPECT_EQ(error->error, "cannot connect to 10.0.0.3:4000: Connection refused");
  auto newer = parse_link_sample("bw ok mbps=10 retransmits=3 rtt_us=7");
  ASSERT_TRUE(newer);
  EXPECT_DOUBLE_EQ(newer->mbps, 10);
  EXPECT_FALSE(parse_link_sample("bw ok bytes=3"));          // no rate
  EXPECT_FALSE(parse_link_sample("bw ok mbps=fast"));        // not a number
  EXPECT_FALSE(parse_link_sample("served 1"));               // not a bw line
}

TEST(LinkSample, ParsesEveryLineOfANodeInOrder) {
  auto samples = parse_link_samples("noise from .bashrc\nbw ok mbps=900 rtt_us=20\nbw error timed out\n"
                                    "bw ok mbps=oops\nserved 2\n");
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_TRUE(samples[0].ok);
  EXPECT_EQ(samples[1].error, "timed out");
  EXPECT_FALSE(samples[2].ok);
  EXPECT_NE(samples[2].error.find("oops"), std::string::npos);
}

TEST(InterfaceHolding, FindsTheInterfaceOfTheAddress) {
  NodeFacts facts;
  facts.interfaces = {{"lo", "127.0.0.1", 4, true, true, -1, false}, {"eth0", "10.0.0.3", 4, true, false, 1000, true}};
  NodeInterface nic = interface_holding(facts, "10.0.0.3");
  EXPECT_EQ(nic.name, "eth0");
  EXPECT_EQ(nic.speed_mbps, 1000);
  EXPECT_TRUE(nic.physical);
  EXPECT_TRUE(interface_holding(facts, "10.9.9.9").name.empty());
}

TEST(BandwidthProbe, PeersAreHostColonPort) {
  auto peer = parse_probe_peer("node2:40123");
  ASSERT_TRUE(peer) << peer.error().message;
  EXPECT_EQ(peer->host, "node2");
  EXPECT_EQ(peer->port, 40123);
  auto v6 = parse_probe_peer("fe80::1:65535");  // the port follows the last ':'
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "fe80::1");
  EXPECT_EQ(v6->port, 65535);
  for (const char* bad : {"node2", "node2:", ":40123", "node2:0", "node2:65536", "node2:12ab", "node2:-1",
                          "node2: 80", "node2:99999999999"}) {
    auto parsed = parse_probe_peer(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().kind, ErrorKind::usage);
    EXPECT_NE(parsed.error().message.find(bad), std::string::npos) << parsed.error().message;
  }
}

// The node side over loopback: one process serves and sends to itself, as one node of a 2-node ring would.
TEST(BandwidthProbe, MeasuresALoopbackLinkAndItsRoundTrip) {
  auto port_line = pick_probe_port();
  ASSERT_TRUE(port_line) << port_line.error().message;
  int port = std::stoi(port_line->substr(5));
  ProbeOptions options;
  options.listen_port = port;
  options.accept = 1;
  options.to = {{"127.0.0.1", port}};
  options.seconds = 0.3;
  options.warmup = 0.05;
  options.timeout_ms = 10'000;
  options.token = new_probe_token();
  auto out = run_bandwidth_probe(options);
  ASSERT_TRUE(out) << out.error().message;
  auto samples = parse_link_samples(*out);
  ASSERT_EQ(samples.size(), 1u) << *out;
  EXPECT_TRUE(samples[0].ok) << samples[0].error;
  EXPECT_GT(samples[0].mbps, 50);  // loopback moves Gbit/s; a broken count would be ~0
  EXPECT_GT(samples[0].bytes, 0);
  EXPECT_NEAR(samples[0].seconds, 0.3, 0.2);
  EXPECT_GT(samples[0].rtt_us, 0);
  EXPECT_NE(out->find("served 1\n"), std::string::npos) << *out;
}

TEST(BandwidthProbe, LatencyRoundStreamsNothing) {
  auto port_line = pick_probe_port();
  ASSERT_TRUE(port_line);
  int port = std::stoi(port_line->substr(5));
  ProbeOptions options{.listen_port = port, .accept = 2, .to = {{"127.0.0.1", port}, {"127.0.0.1", port}},
                       .seconds = 0, .warmup = 0, .pings = 5, .timeout_ms = 10'000, .token = "t0ken"};
  auto out = run_bandwidth_probe(options);
  ASSERT_TRUE(out) << out.error().message;
  auto samples = parse_link_samples(*out);
  ASSERT_EQ(samples.size(), 2u) << *out;
  for (const auto& sample : samples) {
    EXPECT_TRUE(sample.ok) << sample.error;
    EXPECT_EQ(sample.bytes, 0);
    EXPECT_GT(sample.rtt_us, 0);
  }
  EXPECT_NE(out->find("served 2\n"), std::string::npos) << *out;
}

TEST(BandwidthProbe, NobodyListeningIsAnErrorLineWithinTheBound) {
  auto port_line = pick_probe_port();
  ASSERT_TRUE(port_line);
  ProbeOptions options;
  options.to = {{"127.0.0.1", std::stoi(port_line->substr(5))}};
  options.timeout_ms = 600;
  auto out = run_bandwidth_probe(options);
  ASSERT_TRUE(out);
  auto samples = parse_link_samples(*out);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_FALSE(samples[0].ok);
  EXPECT_NE(samples[0].error.find("cannot connect"), std::string::npos) << samples[0].error;
}

// A stray connection (here: one that sends nothing, one with another run's token) reaches the port before the
// run's own sender: it is closed without being served or counted, and the real link is measured as usual.
TEST(BandwidthProbe, StrayConnectionsAreNeitherServedNorCounted) {
  auto port_line = pick_probe_port();
  ASSERT_TRUE(port_line);
  int port = std::stoi(port_line->substr(5));
  std::string token = new_probe_token();
  ProbeOptions receiver{.listen_port = port, .accept = 1, .to = {}, .seconds = 0.2, .warmup = 0.05, .pings = 3,
                        .timeout_ms = 10'000, .token = token};
  Result<std::string> served = std::string();
  std::thread serving([&] { served = run_bandwidth_probe(receiver); });
  auto silent = posix::connect_tcp_stream("127.0.0.1", port, 5000);
  ASSERT_TRUE(silent) << silent.error().message;
  auto other_run = posix::connect_tcp_stream("127.0.0.1", port, 5000);
  ASSERT_TRUE(other_run);
  ASSERT_TRUE(posix::write_until(other_run->get(), "MUSTER-PROBE " + new_probe_token() + "\npppps",
                                 posix::monotonic_ms() + 1000));
  ProbeOptions sender{.listen_port = 0, .accept = 0, .to = {{"127.0.0.1", port}}, .seconds = 0.2, .warmup = 0.05,
                      .pings = 3, .timeout_ms = 10'000, .token = token};
  auto sent = run_bandwidth_probe(sender);
  serving.join();
  ASSERT_TRUE(sent) << sent.error().message;
  auto samples = parse_link_samples(*sent);
  ASSERT_EQ(samples.size(), 1u) << *sent;
  EXPECT_TRUE(samples[0].ok) << samples[0].error;
  EXPECT_GT(samples[0].mbps, 50);
  ASSERT_TRUE(served) << served.error().message;
  EXPECT_EQ(*served, "served 1\n");
}

}  // namespace
}  // namespace muster::doctor
