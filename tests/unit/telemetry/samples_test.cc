#include "telemetry/samples.h"

#include <gtest/gtest.h>

namespace muster::telemetry {
namespace {

NodeSample example() {
  NodeSample s;
  s.unix_ms = 1700000000123;
  s.interval_ms = 1002;
  s.node.cpus = 2;
  s.node.cpu_busy_permille = 731;
  s.node.net_rx_kib = 1234;
  RankSample r;
  r.rank = 3;
  r.source = static_cast<uint32_t>(StepSource::hook);
  r.steps = 12;
  r.compute_us = 70000;
  r.wait_us = 11000;
  r.flags = kRankOwnCgroup;
  s.ranks = {r, RankSample{}};
  GpuSample g;
  g.index = 1;
  g.throttle = kThrottleHwThermal;
  s.gpus = {g};
  s.notes = {"net eth0"};
  return s;
}

TEST(Samples, RoundTripThroughTheProtocolMessage) {
  NodeSample s = example();
  protocol::Telemetry message = to_message(s);
  EXPECT_EQ(message.rank_fields, field_count<RankSample>());
  EXPECT_EQ(message.ranks.size(), 2 * field_count<RankSample>());
  EXPECT_EQ(from_message(message), s);
}

TEST(Samples, RecordsOfOtherWidthsDecode) {
  protocol::Telemetry message = to_message(example());
  // A newer agent: every rank record has two more fields, which this version skips.
  protocol::Telemetry newer = message;
  newer.rank_fields += 2;
  newer.ranks.clear();
  for (size_t i = 0; i < message.ranks.size(); i += message.rank_fields) {
    newer.ranks.insert(newer.ranks.end(), message.ranks.begin() + static_cast<long>(i),
                       message.ranks.begin() + static_cast<long>(i + message.rank_fields));
    newer.ranks.insert(newer.ranks.end(), {77, 88});
  }
  EXPECT_EQ(from_message(newer).ranks, example().ranks);
  // An older agent: records shorter than this version's; the missing fields keep their defaults.
  protocol::Telemetry older = message;
  older.rank_fields = 3;
  older.ranks = {5, 1, 9};
  auto ranks = from_message(older).ranks;
  ASSERT_EQ(ranks.size(), 1u);
  EXPECT_EQ(ranks[0].rank, 5u);
  EXPECT_EQ(ranks[0].steps, 9u);
  EXPECT_EQ(ranks[0].wait_us, kNone);
}

TEST(Samples, Permille) {
  EXPECT_EQ(permille(1, 4), 250u);
  EXPECT_EQ(permille(3, 0), kNone);
}

}  // namespace
}  // namespace muster::telemetry
