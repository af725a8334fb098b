#include "posix/exit_status.h"

#include <signal.h>

#include <gtest/gtest.h>

namespace muster::posix {
namespace {

TEST(ExitStatus, ShellExitCode) {
  EXPECT_EQ(shell_exit_code(Exited{0}), 0);
  EXPECT_EQ(shell_exit_code(Exited{3}), 3);
  EXPECT_EQ(shell_exit_code(Signaled{SIGINT}), 130);
  EXPECT_EQ(shell_exit_code(Signaled{SIGKILL}), 137);
  EXPECT_EQ(shell_exit_code(Signaled{SIGTERM}), 143);
}

TEST(ExitStatus, Describe) {
  EXPECT_EQ(describe(Exited{0}), "exit 0");
  EXPECT_EQ(describe(Exited{3}), "exit 3");
  EXPECT_EQ(describe(Signaled{SIGKILL}), "killed by SIGKILL");
  EXPECT_EQ(describe(Signaled{SIGSEGV, true}), "killed by SIGSEGV (core dumped)");
}

TEST(ExitStatus, SignalNames) {
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(SIGINT), "SIGINT");
  EXPECT_EQ(signal_name(SIGCHLD), "SIGCHLD");
  EXPECT_EQ(signal_name(SIGRTMIN), "SIGRTMIN");
  EXPECT_EQ(signal_name(SIGRTMIN + 2), "SIGRTMIN+2");
  EXPECT_EQ(signal_name(0), "signal 0");
  EXPECT_EQ(signal_name(999), "signal 999");
}

TEST(ExitStatus, VariantsCompare) {
  ExitStatus a = Exited{1};
  EXPECT_EQ(a, ExitStatus(Exited{1}));
  EXPECT_NE(a, ExitStatus(Exited{2}));
  EXPECT_NE(a, ExitStatus(Signaled{1}));
}

}  // namespace
}  // namespace muster::posix
