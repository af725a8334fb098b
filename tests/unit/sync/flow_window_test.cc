#include "sync/flow_window.h"

#include <gtest/gtest.h>

namespace muster::sync {
namespace {

// Acks `rate` bytes per second for `ms` milliseconds, in 10 ms steps, from `acked` at `now`.
void ack_at_rate(FlowWindow& window, uint64_t& acked, int64_t& now, uint64_t rate, int64_t ms) {
  for (int64_t t = 0; t < ms; t += 10) {
    now += 10;
    acked += rate / 100;
    window.on_acked(acked, now);
  }
}

TEST(FlowWindow, StartsAtTheInitialWindow) {
  FlowWindow window;
  EXPECT_EQ(window.bytes(), FlowWindow::kInitial);
  window.on_acked(1000, 5);
  window.on_acked(2000, 50);  // less than a sample period: no change
  EXPECT_EQ(window.bytes(), FlowWindow::kInitial);
}

TEST(FlowWindow, FollowsTheRateForTheTargetTime) {
  FlowWindow window;
  uint64_t acked = 0;
  int64_t now = 1000;
  window.on_acked(acked, now);
  uint64_t rate = 100u << 20;  // 100 MiB/s -> 15 MiB for 150 ms
  ack_at_rate(window, acked, now, rate, 500);
  EXPECT_NEAR(static_cast<double>(window.bytes()), rate * 0.15, rate * 0.15 * 0.05);
}

TEST(FlowWindow, SlowLinksGetTheMinimumFastOnesTheMaximum) {
  FlowWindow slow, fast;
  uint64_t acked = 0, acked_fast = 0;
  int64_t now = 0, now_fast = 0;
  slow.on_acked(0, 0);
  fast.on_acked(0, 0);
  ack_at_rate(slow, acked, now, 1u << 20, 1000);                  // 1 MiB/s
  ack_at_rate(fast, acked_fast, now_fast, 4000ull << 20, 1000);   // 4 GiB/s
  EXPECT_EQ(slow.bytes(), FlowWindow::kMin);
  EXPECT_EQ(fast.bytes(), FlowWindow::kMax);
}

TEST(FlowWindow, OneStallDoesNotCollapseTheWindowButALastingSlowdownShrinksIt) {
  FlowWindow window;
  uint64_t acked = 0;
  int64_t now = 0;
  window.on_acked(0, 0);
  uint64_t rate = 200u << 20;
  ack_at_rate(window, acked, now, rate, 500);
  uint64_t before = window.bytes();
  now += 200;  // nothing acknowledged for 200 ms
  window.on_acked(acked, now);
  EXPECT_EQ(window.bytes(), before);
  ack_at_rate(window, acked, now, 20u << 20, 1000);  // a tenth of the rate, for a second
  EXPECT_NEAR(static_cast<double>(window.bytes()), (20u << 20) * 0.15, (20u << 20) * 0.15 * 0.05);
}

TEST(FlowWindow, ATotalThatGoesBackwardsCountsAsNoProgress) {
  FlowWindow window;
  window.on_acked(5000, 0);
  window.on_acked(100, 200);
  EXPECT_EQ(window.bytes(), FlowWindow::kMin);
}

}  // namespace
}  // namespace muster::sync
