// Stack dumps as faulthandler and eu-stack/gdb print them, parsed and grouped: the odd rank out is named.
#include "diagnosis/stack_groups.h"

#include <gtest/gtest.h>

namespace muster::diagnosis {
namespace {

const char* kWaiting =
    "Thread 0x00007f3a1bfff640 (most recent call first):\n"
    "  File \"/usr/lib/python3.11/threading.py\", line 324 in wait\n"
    "  File \"/usr/lib/python3.11/threading.py\", line 622 in wait\n"
    "\n"
    "Thread 0x00007f3a2d4d7740 (most recent call first):\n"
    "  File \"/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py\", line 1536 in all_reduce\n"
    "  File \"/home/u/train.py\", line 42 in train_step\n"
    "  File \"/home/u/train.py\", line 60 in <module>\n";

const char* kStuck =
    "Thread 0x00007f11aaaaa740 (most recent call first):\n"
    "  File \"/home/u/train.py\", line 14 in stuck_in_data_loader\n"
    "  File \"/home/u/train.py\", line 40 in train_step\n"
    "  File \"/home/u/train.py\", line 60 in <module>\n";

const char* kNative =
    "PID 4242 - process\n"
    "TID 4242:\n"
    "#0  0x00007f0c1f2e5e3a __GI___clock_nanosleep\n"
    "#1  0x00007f0c1f2ea7e7 __GI___nanosleep\n"
    "#2  0x000055d6d4b6c2e1 rpl_nanosleep\n"
    "#3  0x000055d6d4b6a0b0 main\n";

RankStack python_rank(int rank, const char* node, const char* text) {
  return RankStack{rank, node, parse_stack_dump(StackKind::python, text), ""};
}

TEST(StackDump, PythonFramesInnermostFirstAndTheMainThreadLast) {
  auto dump = parse_stack_dump(StackKind::python, kWaiting);
  ASSERT_EQ(dump.threads.size(), 2u);
  const Thread* main = main_thread(dump);
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->label, "Thread 0x00007f3a2d4d7740");
  ASSERT_EQ(main->frames.size(), 3u);
  EXPECT_EQ(main->frames[0].function, "all_reduce");
  EXPECT_EQ(main->frames[1].file, "/home/u/train.py");
  EXPECT_EQ(main->frames[1].line, 42);
  EXPECT_EQ(describe_thread(*main), "all_reduce ← train_step (train.py:42)");
}

TEST(StackDump, UserCodeOnTopIsDescribedAlone) {
  auto dump = parse_stack_dump(StackKind::python, kStuck);
  EXPECT_EQ(describe_thread(*main_thread(dump)), "stuck_in_data_loader (train.py:14)");
}

TEST(StackDump, NativeEuStackAndGdbFrames) {
  auto eu = parse_stack_dump(StackKind::native, kNative);
  ASSERT_EQ(eu.threads.size(), 1u);
  EXPECT_EQ(eu.threads[0].label, "TID 4242");
  ASSERT_EQ(eu.threads[0].frames.size(), 4u);
  EXPECT_EQ(eu.threads[0].frames[0].function, "__GI___clock_nanosleep");
  auto gdb = parse_stack_dump(StackKind::native,
                              "Thread 1 (Thread 0x7f0c1f1d7740 (LWP 4242) \"sleep\"):\n"
                              "#0  0x00007f0c1f2e5e3a in __GI___clock_nanosleep (clock_id=0) at ../sysdeps/x.c:78\n"
                              "#1  0x000055d6d4b6a0b0 in main () at sleep.c:3\n");
  ASSERT_EQ(gdb.threads.size(), 1u);
  ASSERT_EQ(gdb.threads[0].frames.size(), 2u);
  EXPECT_EQ(gdb.threads[0].frames[0].function, "__GI___clock_nanosleep");
  EXPECT_EQ(gdb.threads[0].frames[1].file, "sleep.c");
  EXPECT_EQ(gdb.threads[0].frames[1].line, 3);
  EXPECT_EQ(describe_thread(gdb.threads[0]), "__GI___clock_nanosleep (x.c:78)");
}

TEST(StackGroups, IdenticalStacksGroupAndTheOddRankIsNamed) {
  std::vector<RankStack> stacks;
  for (int rank : {0, 1, 2, 4, 5}) stacks.push_back(python_rank(rank, rank < 2 ? "node1" : "node3", kWaiting));
  stacks.push_back(python_rank(3, "node2", kStuck));
  auto groups = group_stacks(stacks);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].ranks, (std::vector<int>{0, 1, 2, 4, 5}));
  EXPECT_FALSE(groups[0].odd);
  EXPECT_EQ(groups[1].ranks, (std::vector<int>{3}));
  EXPECT_TRUE(groups[1].odd);
  EXPECT_EQ(format_stack_summary(groups),
            "  ranks 0-2,4-5 (5) on node[1,3] (2): all_reduce ← train_step (train.py:42)\n"
            "  rank 3 on node2: stuck_in_data_loader (train.py:14)   <- the odd one out");
}

TEST(StackGroups, ThreadIdsDoNotSplitGroupsButLinesDo) {
  std::string other_ids = kWaiting;
  other_ids.replace(other_ids.find("7f3a2d4d7740"), 12, "7f99deadbeef");
  std::string other_line = kWaiting;
  other_line.replace(other_line.find("line 42"), 7, "line 43");
  auto groups = group_stacks({python_rank(0, "a", kWaiting), python_rank(1, "a", other_ids.c_str()),
                              python_rank(2, "b", other_line.c_str())});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(groups[1].ranks, (std::vector<int>{2}));
}

TEST(StackGroups, RanksWithoutAStackSayWhy) {
  std::vector<RankStack> stacks = {python_rank(0, "node1", kWaiting), python_rank(1, "node1", kWaiting)};
  stacks.push_back(RankStack{2, "node2", {}, "the process exited before it could be asked"});
  auto groups = group_stacks(stacks);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_FALSE(groups[1].has_stack);
  EXPECT_NE(format_stack_summary(groups).find("rank 2 on node2: no stack: the process exited"), std::string::npos);
}

TEST(StackGroups, FullStacksAreRankByRank) {
  auto text = format_full_stacks({python_rank(1, "node2", kStuck), python_rank(0, "node1", kWaiting)});
  EXPECT_LT(text.find("=== rank 0 on node1 ==="), text.find("=== rank 1 on node2 ==="));
  EXPECT_NE(text.find("stuck_in_data_loader"), std::string::npos);
}

}  // namespace
}  // namespace muster::diagnosis
