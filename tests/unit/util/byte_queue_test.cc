#include "util/byte_queue.h"

#include <cstring>
#include <string>

#include <gtest/gtest.h>

namespace muster {
namespace {

// A FIFO: whatever is appended or produced in place comes out in order, across growth and compaction.
TEST(ByteQueue, KeepsOrderAcrossGrowthCompactionAndInPlaceWrites) {
  ByteQueue queue;
  std::string expected;
  size_t taken = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string piece(static_cast<size_t>(round % 997 + 1), static_cast<char>('a' + round % 26));
    if (round % 3 == 0) {
      auto space = queue.reserve_back(piece.size() + 100);
      ASSERT_GE(space.size(), piece.size());
      std::memcpy(space.data(), piece.data(), piece.size());
      queue.commit_back(piece.size());  // 100 reserved bytes left unused
    } else {
      queue.append(piece);
    }
    expected += piece;
    size_t n = queue.size() / 2 + (round % 2);
    ASSERT_EQ(queue.pending(), std::string_view(expected).substr(taken));
    queue.consumed(n);
    taken += n;
  }
  EXPECT_EQ(queue.pending(), std::string_view(expected).substr(taken));
  queue.consumed(queue.size());
  EXPECT_TRUE(queue.empty());
  queue.append("x");
  EXPECT_EQ(queue.pending(), "x");
}

TEST(ByteQueue, ReserveOnAnEmptyQueueAndNothingCommitted) {
  ByteQueue queue;
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.pending(), "");
  auto space = queue.reserve_back(1 << 20);
  EXPECT_EQ(space.size(), size_t{1} << 20);
  queue.commit_back(0);
  EXPECT_TRUE(queue.empty());
  queue.append("");
  EXPECT_TRUE(queue.empty());
}

}  // namespace
}  // namespace muster
