#include "launch/gang.h"

#include <gtest/gtest.h>

#include "cluster/rank_plan.h"

namespace muster::launch {
namespace {

// Two nodes: node1 has ranks 0-1, node2 has ranks 2-4.
cluster::RankPlan uneven_plan() {
  cluster::NodeSlots a{cluster::Host{.name = "node1"}, {0, 1}};
  cluster::NodeSlots b{cluster::Host{.name = "node2"}, {0, 1, 2}};
  return cluster::make_rank_plan({a, b});
}

TEST(Gang, CleanExitsAreNotFailures) {
  Gang gang(uneven_plan());
  for (int rank = 0; rank < 5; ++rank) gang.started(rank);
  EXPECT_FALSE(gang.ended(1, RankPhase::exited, 0, "exit 0", 10));
  EXPECT_FALSE(gang.all_ended());
  for (int rank : {0, 2, 3, 4}) EXPECT_FALSE(gang.ended(rank, RankPhase::exited, 0, "exit 0", 20));
  EXPECT_TRUE(gang.all_ended());
  EXPECT_FALSE(gang.failed());
  EXPECT_EQ(gang.exit_code(), 0);
}

TEST(Gang, FirstFailureIsTheRootCauseAndSetsTheExitCode) {
  Gang gang(uneven_plan());
  EXPECT_TRUE(gang.ended(3, RankPhase::signaled, 9, "killed by SIGKILL", 10));
  gang.tearing_down();
  EXPECT_FALSE(gang.ended(0, RankPhase::exited, 1, "exit 1", 11));
  EXPECT_FALSE(gang.ended(4, RankPhase::signaled, 15, "killed by SIGTERM", 12));
  EXPECT_EQ(gang.root_cause(), 3);
  EXPECT_EQ(gang.exit_code(), 137);
  EXPECT_FALSE(gang.status(3).by_muster);
  EXPECT_TRUE(gang.status(4).by_muster);
}

TEST(Gang, ExitCodeOfAnExitedRootCauseIsItsOwn) {
  Gang gang(uneven_plan());
  EXPECT_TRUE(gang.ended(2, RankPhase::exited, 3, "exit 3", 5));
  EXPECT_EQ(gang.exit_code(), 3);
}

TEST(Gang, TheFirstWordAboutARankWins) {
  Gang gang(uneven_plan());
  EXPECT_TRUE(gang.ended(0, RankPhase::exited, 2, "exit 2", 5));
  EXPECT_FALSE(gang.ended(0, RankPhase::signaled, 9, "again", 6));
  EXPECT_EQ(gang.status(0).phase, RankPhase::exited);
  EXPECT_EQ(gang.status(0).code, 2);
}

TEST(Gang, ALostNodeFailsOnlyItsUnfinishedRanks) {
  Gang gang(uneven_plan());
  EXPECT_FALSE(gang.ended(2, RankPhase::exited, 0, "exit 0", 5));
  EXPECT_TRUE(gang.node_lost(1, "node2 lost: no heartbeat", 6));
  EXPECT_EQ(gang.status(2).phase, RankPhase::exited);
  EXPECT_EQ(gang.status(3).phase, RankPhase::lost);
  EXPECT_EQ(gang.status(4).phase, RankPhase::lost);
  EXPECT_EQ(gang.status(0).phase, RankPhase::pending);
  EXPECT_EQ(gang.root_cause(), 3);
  EXPECT_EQ(gang.exit_code(), 1);
}

TEST(Gang, AnInterruptedGangHasNoRootCause) {
  Gang gang(uneven_plan());
  gang.tearing_down();  // the user's Ctrl-C
  EXPECT_FALSE(gang.ended(0, RankPhase::exited, 7, "exit 7", 5));
  EXPECT_FALSE(gang.failed());
  EXPECT_TRUE(gang.status(0).by_muster);
}

}  // namespace
}  // namespace muster::launch
