#include "protocol/hops.h"

#include <gtest/gtest.h>

namespace muster::protocol {
namespace {

std::vector<uint32_t> hops_in(const std::string& mask) {
  std::vector<uint32_t> hops;
  for (uint32_t h = 0; h < mask.size() * 8; ++h) {
    if (has_hop(mask, h)) hops.push_back(h);
  }
  return hops;
}

TEST(Hops, MaskRoundTrips) {
  for (const auto& hops : std::vector<std::vector<uint32_t>>{{}, {0}, {1}, {7}, {8}, {0, 3, 9, 15, 16}, {63}}) {
    EXPECT_EQ(hops_in(hop_mask(hops)), hops);
  }
  EXPECT_EQ(hop_mask({0, 1}), "\x03");
  EXPECT_EQ(hop_mask({9}), std::string("\0\x02", 2));
  EXPECT_FALSE(has_hop("", 0));
  EXPECT_FALSE(has_hop("\x01", 8));
}

TEST(Hops, NextHopsMovesEveryHopOneCloserAcrossBytes) {
  EXPECT_EQ(hops_in(next_hops(hop_mask({0, 1, 8, 9, 17}))), (std::vector<uint32_t>{0, 7, 8, 16}));
  EXPECT_EQ(next_hops(hop_mask({0})), "");  // only this agent: nothing to forward
  EXPECT_EQ(next_hops(""), "");
  EXPECT_EQ(next_hops(hop_mask({8})), "\x80");  // trailing zero bytes dropped
}

}  // namespace
}  // namespace muster::protocol
