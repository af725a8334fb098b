#include "posix/signals.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "posix/clock.h"
#include "posix/pipe.h"
#include "posix/poller.h"
#include "posix/process.h"
#include "posix_test_support.h"

namespace muster::posix {
namespace {

using testing::ChildGuard;
using testing::wait_for;

bool is_blocked(int signal) {
  sigset_t mask;
  ::pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  return sigismember(&mask, signal) == 1;
}

void (*disposition(int signal))(int) {
  struct sigaction action{};
  ::sigaction(signal, nullptr, &action);
  return action.sa_handler;
}

bool contains(const std::vector<int>& signals, int signal) {
  return std::find(signals.begin(), signals.end(), signal) != signals.end();
}

// Waits (bounded) until `signal` is among the pending ones; returns everything seen.
std::vector<int> wait_for_signal(Poller& poller, int signal, int timeout_ms) {
  std::vector<int> seen;
  int64_t deadline = monotonic_ms() + timeout_ms;
  while (!contains(seen, signal) && monotonic_ms() < deadline) {
    EXPECT_TRUE(poller.wait(timeout_until(deadline)));
    for (int s : take_pending_signals()) seen.push_back(s);
  }
  return seen;
}

TEST(SignalBlock, ARaisedSignalIsDeliveredOnlyInsideTheWait) {
  SignalBlock block;
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  take_pending_signals();

  ASSERT_EQ(::raise(SIGTERM), 0);  // blocked: this process survives it
  EXPECT_TRUE(take_pending_signals().empty()) << "no handler may run outside the wait";

  int64_t start = monotonic_ms();
  auto events = poller->wait(10000);
  ASSERT_TRUE(events);
  EXPECT_TRUE(events->empty());
  EXPECT_LT(monotonic_ms() - start, 2000) << "the signal should have ended the wait at once";
  EXPECT_EQ(take_pending_signals(), std::vector<int>{SIGTERM});
  EXPECT_TRUE(take_pending_signals().empty());
}

TEST(SignalBlock, RepeatedSignalsCoalesce) {
  SignalBlock block;
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  ::raise(SIGHUP);
  ::raise(SIGHUP);
  ::raise(SIGINT);
  ASSERT_TRUE(poller->wait(2000));
  EXPECT_EQ(take_pending_signals(), (std::vector<int>{SIGHUP, SIGINT}));  // all of them, in one wait
}

TEST(SignalBlock, ReadyFdsDoNotStarveSignals) {
  SignalBlock block;
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  ASSERT_TRUE(poller->add(pipe->write.get(), poll_writable, 1));  // ready on every wait
  take_pending_signals();
  ::raise(SIGTERM);
  auto events = poller->wait(1000);
  ASSERT_TRUE(events);
  EXPECT_EQ(events->size(), 1u);
  EXPECT_EQ(take_pending_signals(), std::vector<int>{SIGTERM});
}

TEST(SignalBlock, AZeroTimeoutWaitStillDeliversSignals) {
  SignalBlock block;
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  take_pending_signals();
  ::raise(SIGINT);
  ASSERT_TRUE(poller->wait(0));
  EXPECT_EQ(take_pending_signals(), std::vector<int>{SIGINT});
}

TEST(SignalBlock, ASignalFromAnotherProcessWakesTheWait) {
  SignalBlock block;
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  auto spawned = spawn(SpawnOptions{.argv = {"/bin/sh", "-c", "kill -HUP $PPID"}});
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  auto seen = wait_for_signal(*poller, SIGHUP, 5000);
  EXPECT_TRUE(contains(seen, SIGHUP));
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Exited{0}));
}

TEST(SignalBlock, AnExitingChildWakesTheWaitWithSigchld) {
  SignalBlock block;
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  take_pending_signals();
  auto spawned = spawn(SpawnOptions{.argv = {"/bin/sh", "-c", "sleep 0.1"}});
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  auto seen = wait_for_signal(*poller, SIGCHLD, 5000);
  EXPECT_TRUE(contains(seen, SIGCHLD));
  EXPECT_EQ(child->try_wait(), ExitStatus(Exited{0}));
}

TEST(SignalBlock, CustomSignalSet) {
  SignalBlock block({SIGUSR1});
  EXPECT_TRUE(is_blocked(SIGUSR1));
  EXPECT_FALSE(is_blocked(SIGTERM));
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  ::raise(SIGUSR1);
  auto seen = wait_for_signal(*poller, SIGUSR1, 2000);
  EXPECT_EQ(seen, std::vector<int>{SIGUSR1});
}

TEST(SignalBlock, BlocksTheDefaultSetAndIgnoresSigpipe) {
  auto sigpipe_before = disposition(SIGPIPE);
  {
    SignalBlock block;
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT}) EXPECT_TRUE(is_blocked(s)) << signal_name(s);
    EXPECT_EQ(disposition(SIGPIPE), SIG_IGN);
    EXPECT_NE(disposition(SIGTERM), SIG_DFL);
  }
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT}) EXPECT_FALSE(is_blocked(s)) << signal_name(s);
  EXPECT_EQ(disposition(SIGPIPE), sigpipe_before);
  EXPECT_EQ(disposition(SIGTERM), SIG_DFL);
}

TEST(SignalBlock, ASignalPendingAtDestructionGoesToTheFlagNotTheDefaultAction) {
  take_pending_signals();
  {
    SignalBlock block;
    ::raise(SIGTERM);  // pending; with the wrong restore order this would kill the test binary
  }
  EXPECT_EQ(take_pending_signals(), std::vector<int>{SIGTERM});
}

}  // namespace
}  // namespace muster::posix
