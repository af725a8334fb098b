#include "posix/poller.h"

#include <signal.h>

#include <gtest/gtest.h>

#include "posix/clock.h"
#include "posix/pipe.h"
#include "posix/process.h"
#include "posix_test_support.h"

namespace muster::posix {
namespace {

using testing::ChildGuard;
using testing::wait_for;

TEST(Poller, APipeBecomingReadableWakesTheWait) {
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  ASSERT_TRUE(poller->add(pipe->read.get(), poll_readable, 42));

  SpawnOptions options{.argv = {"/bin/sh", "-c", "sleep 0.2; echo x"}};
  options.stdout_fd = pipe->write.get();
  auto spawned = spawn(options);
  ASSERT_TRUE(spawned);
  ChildGuard child(std::move(*spawned));
  pipe->write.reset();

  int64_t start = monotonic_ms();
  auto events = poller->wait(10000);
  int64_t waited = monotonic_ms() - start;
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].token, 42u);
  EXPECT_NE((*events)[0].events & poll_readable, 0u);
  EXPECT_GE(waited, 100);   // it did wait for the child...
  EXPECT_LT(waited, 5000);  // ...and woke as soon as the data came
  EXPECT_EQ(wait_for(*child, 5000), ExitStatus(Exited{0}));
}

TEST(Poller, TimeoutIsRespected) {
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  ASSERT_TRUE(poller->add(pipe->read.get(), poll_readable, 1));
  int64_t start = monotonic_ms();
  auto events = poller->wait(150);
  int64_t waited = monotonic_ms() - start;
  ASSERT_TRUE(events);
  EXPECT_TRUE(events->empty());
  EXPECT_GE(waited, 140);
  EXPECT_LT(waited, 2000);

  start = monotonic_ms();
  ASSERT_TRUE(poller->wait(0));
  EXPECT_LT(monotonic_ms() - start, 100);
}

TEST(Poller, ClosedWriterIsReportedAsHangup) {
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  ASSERT_TRUE(poller->add(pipe->read.get(), poll_readable, 7));
  pipe->write.reset();
  auto events = poller->wait(1000);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_NE((*events)[0].events & poll_hangup, 0u);
}

TEST(Poller, ModifyAndRemove) {
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  int w = pipe->write.get();
  ASSERT_TRUE(poller->add(w, poll_writable, 1));
  auto writable = poller->wait(1000);
  ASSERT_TRUE(writable);
  ASSERT_EQ(writable->size(), 1u);
  EXPECT_EQ((*writable)[0].token, 1u);

  ASSERT_TRUE(poller->modify(w, poll_readable, 2));  // a write end never becomes readable
  auto none = poller->wait(0);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());

  ASSERT_TRUE(poller->modify(w, poll_writable, 3));
  auto again = poller->wait(1000);
  ASSERT_TRUE(again);
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].token, 3u);

  ASSERT_TRUE(poller->remove(w));
  auto removed = poller->wait(0);
  ASSERT_TRUE(removed);
  EXPECT_TRUE(removed->empty());
  auto twice = poller->remove(w);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().kind, ErrorKind::io);
}

TEST(Poller, AddingAnInvalidFdIsAnErrorNamingIt) {
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  auto added = poller->add(-1, poll_readable, 0);
  ASSERT_FALSE(added);
  EXPECT_NE(added.error().message.find("fd -1"), std::string::npos);
}

TEST(Poller, ManyReadyFdsComeBackInBatches) {
  auto poller = Poller::create();
  ASSERT_TRUE(poller);
  std::vector<Pipe> pipes;
  for (int i = 0; i < Poller::kMaxEvents + 44; ++i) {
    auto pipe = make_pipe();
    ASSERT_TRUE(pipe);
    ASSERT_TRUE(poller->add(pipe->write.get(), poll_writable, static_cast<uint64_t>(i)));
    pipes.push_back(std::move(*pipe));
  }
  auto first = poller->wait(1000);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->size(), static_cast<size_t>(Poller::kMaxEvents));  // level-triggered: the rest stay ready for the next call
  for (const auto& event : *first) ASSERT_TRUE(poller->remove(pipes[event.token].write.get()));
  auto second = poller->wait(1000);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->size(), 44u);
}

TEST(Poller, MoveKeepsTheRegistrations) {
  auto created = Poller::create();
  ASSERT_TRUE(created);
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  ASSERT_TRUE(created->add(pipe->write.get(), poll_writable, 9));
  Poller poller = std::move(*created);
  auto events = poller.wait(1000);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].token, 9u);
}

}  // namespace
}  // namespace muster::posix
