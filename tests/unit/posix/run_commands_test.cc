#include "posix/run_commands.h"

#include <chrono>

#include <gtest/gtest.h>

#include "posix/signals.h"

namespace muster::posix {
namespace {

TEST(CommandRunner, RunsCommandsAtOnceAndCollectsTheirOutput) {
  posix::SignalBlock signals;
  auto start = std::chrono::steady_clock::now();
  auto outcomes = run_commands({{"sh", "-c", "sleep 0.3; echo one"}, {"sh", "-c", "sleep 0.3; echo two >&2; exit 3"}},
                               5000);
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_TRUE(outcomes[0].succeeded());
  EXPECT_EQ(outcomes[0].out, "one\n");
  EXPECT_EQ(outcomes[1].err, "two\n");
  EXPECT_EQ(outcomes[1].status, posix::ExitStatus(posix::Exited{3}));
  EXPECT_LT(elapsed, std::chrono::milliseconds(550));  // concurrently, not 0.6 s one after the other
}

TEST(CommandRunner, KillsWhatOutlivesTheDeadline) {
  posix::SignalBlock signals;
  auto start = std::chrono::steady_clock::now();
  auto outcomes = run_commands({{"sh", "-c", "sleep 30 & sleep 30"}}, 300);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_TRUE(outcomes[0].started);
  EXPECT_TRUE(outcomes[0].timed_out);
  EXPECT_FALSE(outcomes[0].succeeded());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(CommandRunner, AMissingProgramDidNotStart) {
  posix::SignalBlock signals;
  auto outcomes = run_commands({{"/nonexistent/muster-probe"}}, 1000);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_FALSE(outcomes[0].started);
  EXPECT_NE(outcomes[0].error.find("/nonexistent/muster-probe"), std::string::npos) << outcomes[0].error;
}

TEST(CommandRunner, AFailureIsDescribedByWhatItSaidAndHowItEnded) {
  posix::SignalBlock signals;
  auto outcomes = run_commands({{"sh", "-c", "echo out; echo 'no such image ' >&2; exit 125"},
                                {"sh", "-c", "printf 'only stdout\\n\\n'; kill -KILL $$"},
                                {"/nonexistent/muster-probe"},
                                {"sleep", "5"}},
                               300);
  ASSERT_EQ(outcomes.size(), 4u);
  EXPECT_EQ(describe_failure(outcomes[0]), "no such image (exit 125)");  // stderr first, trailing blanks dropped
  EXPECT_EQ(describe_failure(outcomes[1]), "only stdout (killed by SIGKILL)");
  EXPECT_EQ(describe_failure(outcomes[2]), outcomes[2].error);
  EXPECT_EQ(describe_failure(outcomes[3]), outcomes[3].error);
  EXPECT_NE(outcomes[3].error.find("timed out"), std::string::npos) << outcomes[3].error;
}

}  // namespace
}  // namespace muster::posix
