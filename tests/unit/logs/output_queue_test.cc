#include "logs/output_queue.h"

#include <gtest/gtest.h>

namespace muster::logs {
namespace {

TEST(OutputQueue, FifoWithPartialConsumption) {
  OutputQueue queue;
  queue.append("hello ");
  queue.append("world");
  EXPECT_EQ(queue.pending(), "hello world");
  queue.consumed(3);
  EXPECT_EQ(queue.pending(), "lo world");
  EXPECT_EQ(queue.size(), 8u);
  queue.consumed(8);
  EXPECT_EQ(queue.pending(), "");
}

TEST(OutputQueue, RetractOnlyWhileWhollyPendingAndLast) {
  OutputQueue queue;
  queue.append("line\n");
  queue.append_retractable("status");
  EXPECT_TRUE(queue.retract());
  EXPECT_EQ(queue.pending(), "line\n");
  EXPECT_FALSE(queue.retract());

  queue.append_retractable("status");
  queue.append("x");
  EXPECT_FALSE(queue.retract());

  OutputQueue partly;
  partly.append_retractable("status");
  partly.consumed(1);
  EXPECT_FALSE(partly.retract());
  EXPECT_EQ(partly.pending(), "tatus");
}

TEST(OutputQueue, RetractSurvivesCompaction) {
  OutputQueue queue;
  queue.append(std::string(100 * 1024, 'x'));
  queue.append_retractable("status");
  queue.consumed(80 * 1024);
  EXPECT_TRUE(queue.retract());
  EXPECT_EQ(queue.pending(), std::string(20 * 1024, 'x'));
}

}  // namespace
}  // namespace muster::logs
