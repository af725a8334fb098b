#include "posix/event_loop.h"

#include <signal.h>

#include <gtest/gtest.h>

#include "posix/clock.h"
#include "posix/file.h"
#include "posix/pipe.h"
#include "posix/signals.h"

namespace muster::posix {
namespace {

std::unique_ptr<EventLoop> make_loop() {
  auto loop = EventLoop::create();
  EXPECT_TRUE(loop);
  return std::move(*loop);
}

TEST(EventLoop, AReadyDescriptorRunsItsHandler) {
  auto loop = make_loop();
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  int calls = 0;
  uint32_t seen = 0;
  auto watch = loop->watch(pipe->read.get(), poll_readable, [&](uint32_t events) {
    ++calls;
    seen = events;
    char byte;
    (void)read_some(pipe->read.get(), std::span<char>(&byte, 1));
  });
  ASSERT_TRUE(watch);
  ASSERT_TRUE(write_all(pipe->write.get(), "x"));
  ASSERT_TRUE(loop->run_once(1000));
  EXPECT_EQ(calls, 1);
  EXPECT_NE(seen & poll_readable, 0u);
  ASSERT_TRUE(loop->run_once(0));  // nothing more to read
  EXPECT_EQ(calls, 1);
}

TEST(EventLoop, ADroppedWatchGetsNoFurtherEventsAndLeavesTheLoop) {
  auto loop = make_loop();
  auto a = make_pipe();
  auto b = make_pipe();
  ASSERT_TRUE(a && b);
  int a_calls = 0, b_calls = 0;
  EventLoop::FdWatch watch_b;
  // Both pipes are ready in the same round; whichever handler runs first drops the other's watch.
  auto watch_a = loop->watch(a->read.get(), poll_readable, [&](uint32_t) {
    ++a_calls;
    watch_b.reset();
  });
  auto made_b = loop->watch(b->read.get(), poll_readable, [&](uint32_t) { ++b_calls; });
  ASSERT_TRUE(watch_a && made_b);
  watch_b = std::move(*made_b);
  ASSERT_TRUE(write_all(a->write.get(), "x"));
  ASSERT_TRUE(write_all(b->write.get(), "x"));
  ASSERT_TRUE(loop->run_once(1000));
  EXPECT_EQ(a_calls + b_calls, a_calls == 1 && b_calls == 1 ? 2 : 1);
  int b_before = b_calls;
  ASSERT_TRUE(loop->run_once(0));
  EXPECT_EQ(b_calls, b_before);  // dropped: never again, though its pipe is still readable
  EXPECT_EQ(loop->watched_fds(), 1u);
}

TEST(EventLoop, AHandlerMayDropItsOwnWatchAndRegisterOthers) {
  auto loop = make_loop();
  auto a = make_pipe();
  auto b = make_pipe();
  ASSERT_TRUE(a && b);
  std::vector<EventLoop::FdWatch> more;
  EventLoop::FdWatch self;
  int b_calls = 0;
  const std::string original = "a long capture that does not fit a small buffer, so the handler lives on the heap";
  std::string captured = original;
  auto made = loop->watch(a->read.get(), poll_readable, [&, captured](uint32_t) {
    // b's pipe is registered once; the other 99 registrations of the same fd fail (EEXIST) but still take
    // and give back table slots while this handler runs.
    self.reset();  // its own registration, while it runs
    for (int i = 0; i < 100; ++i) {  // grows the loop's tables while it runs
      auto extra = loop->watch(b->read.get(), i == 0 ? poll_readable : 0, [&](uint32_t) { ++b_calls; });
      if (i == 0) {
        ASSERT_TRUE(extra);
        more.push_back(std::move(*extra));
      }
    }
    EXPECT_EQ(captured, original);  // still intact
  });
  ASSERT_TRUE(made);
  self = std::move(*made);
  ASSERT_TRUE(write_all(a->write.get(), "x"));
  ASSERT_TRUE(write_all(b->write.get(), "x"));
  ASSERT_TRUE(loop->run_once(1000));
  ASSERT_TRUE(loop->run_once(1000));
  EXPECT_EQ(b_calls, 1);
  EXPECT_FALSE(self.active());
}

TEST(EventLoop, SilencedWatchWaitsUntilItsEventsComeBack) {
  auto loop = make_loop();
  auto pipe = make_pipe();
  ASSERT_TRUE(pipe);
  int calls = 0;
  auto watch = loop->watch(pipe->read.get(), poll_readable, [&](uint32_t) { ++calls; });
  ASSERT_TRUE(watch);
  ASSERT_TRUE(watch->set_events(0));
  ASSERT_TRUE(write_all(pipe->write.get(), "x"));
  ASSERT_TRUE(loop->run_once(50));
  EXPECT_EQ(calls, 0);
  ASSERT_TRUE(watch->set_events(poll_readable));
  ASSERT_TRUE(loop->run_once(1000));
  EXPECT_EQ(calls, 1);
}

TEST(EventLoop, TimersFireOncePerArmAndBoundTheWait) {
  auto loop = make_loop();
  std::vector<int64_t> fired;
  auto timer = loop->timer([&](int64_t now) { fired.push_back(now); });
  EXPECT_FALSE(timer.armed());
  EXPECT_EQ(loop->next_timer_in(monotonic_ms()), -1);
  int64_t start = monotonic_ms();
  timer.arm(start + 100);
  timer.arm_earlier(start + 5000);  // the earlier stays
  EXPECT_EQ(timer.deadline(), start + 100);
  ASSERT_TRUE(loop->run_once(10'000));  // returns at the timer, not after 10 s
  int64_t waited = monotonic_ms() - start;
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_GE(fired[0], start + 100);
  EXPECT_LT(waited, 5000);
  EXPECT_FALSE(timer.armed());
  ASSERT_TRUE(loop->run_once(0));
  EXPECT_EQ(fired.size(), 1u);
  timer.arm(monotonic_ms());
  timer.disarm();
  ASSERT_TRUE(loop->run_once(0));
  EXPECT_EQ(fired.size(), 1u);
}

TEST(EventLoop, ATimerHandlerMayReArmAndDropTimers) {
  auto loop = make_loop();
  int a_calls = 0, b_calls = 0;
  EventLoop::Timer b = loop->timer([&](int64_t) { ++b_calls; });
  EventLoop::Timer a;
  a = loop->timer([&](int64_t now) {
    ++a_calls;
    if (a_calls < 3) a.arm(now);  // again next round
    b.reset();
  });
  int64_t now = monotonic_ms();
  a.arm(now);
  b.arm(now + 1'000'000);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(loop->run_once(0));
  EXPECT_EQ(a_calls, 3);
  EXPECT_EQ(b_calls, 0);
  EXPECT_FALSE(b.armed());
}

TEST(EventLoop, SignalsArriveThroughTheWait) {
  SignalBlock block;
  auto loop = make_loop();
  ASSERT_EQ(::raise(SIGHUP), 0);
  auto signals = loop->run_once(1000);
  ASSERT_TRUE(signals);
  EXPECT_EQ(*signals, std::vector<int>{SIGHUP});
}

}  // namespace
}  // namespace muster::posix
