// What the agent answers from the Python hook's stacks file (stack_dumper.h): the hook's own thread and its marker
// lines (the file's first line, the flight recorder's begin/end) are left out; every other thread stays.
#include "agent/stack_dumper.h"

#include <gtest/gtest.h>

namespace muster::agent {
namespace {

TEST(CleanPythonDump, DropsTheHooksThreadAndMarkerLines) {
  const std::string dump =
      "muster-stacks pid=42 start=777 helper=0x00007f0000000002\n"
      "Thread 0x00007f0000000003 (most recent call first):\n"
      "  File \"train.py\", line 9 in side_loop\n"
      "\n"
      "Thread 0x00007f0000000002 (most recent call first):\n"
      "  File \"sitecustomize.py\", line 40 in muster_stack_dump_thread\n"
      "\n"
      "Current thread 0x00007f0000000001 (most recent call first):\n"
      "  File \"train.py\", line 20 in train_step\n"
      "muster-flight-recorder begin\n"
      "muster-flight-recorder end /state/flight-recorder-0/nccl_trace_rank_0\n";
  std::string clean = clean_python_dump(dump, "0x00007f0000000002");
  EXPECT_NE(clean.find("side_loop"), std::string::npos) << clean;
  EXPECT_NE(clean.find("train_step"), std::string::npos) << clean;
  EXPECT_EQ(clean.find("muster_stack_dump_thread"), std::string::npos) << clean;
  EXPECT_EQ(clean.find("muster-"), std::string::npos) << clean;
}

}  // namespace
}  // namespace muster::agent
