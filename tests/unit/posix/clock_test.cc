#include "posix/clock.h"

#include <unistd.h>

#include <limits>

#include <gtest/gtest.h>

namespace muster::posix {
namespace {

TEST(Clock, MonotonicAdvances) {
  int64_t before = monotonic_ms();
  ::usleep(30000);
  int64_t after = monotonic_ms();
  EXPECT_GE(after - before, 25);
  EXPECT_LT(after - before, 5000);
}

TEST(Clock, TimeoutUntilClamps) {
  int64_t now = monotonic_ms();
  EXPECT_EQ(timeout_until(now - 1000), 0);
  int left = timeout_until(now + 1000);
  EXPECT_GT(left, 900);
  EXPECT_LE(left, 1000);
  EXPECT_EQ(timeout_until(std::numeric_limits<int64_t>::max() / 2), std::numeric_limits<int>::max());
}

}  // namespace
}  // namespace muster::posix
