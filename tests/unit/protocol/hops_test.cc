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

TEST(Hops, AnyHopFindsASubtreeWithABitSet) {
  std::string mask = hop_mask({0, 9, 17});
  EXPECT_TRUE(has_any_hop(mask, {3, 4, 9}));
  EXPECT_TRUE(has_any_hop(mask, {17}));
  EXPECT_FALSE(has_any_hop(mask, {1, 2, 8, 10, 16, 18, 1000}));  // past the mask's end: not set
  EXPECT_FALSE(has_any_hop(mask, {}));
  EXPECT_FALSE(has_any_hop("", {0}));
}

}  // namespace
}  // namespace muster::protocol
