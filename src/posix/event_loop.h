// EventLoop: the one loop of a muster process (ninja's SubprocessSet::DoWork, mosh's select loop). The command
// owns it; every component that waits for something registers it here with a handler — a descriptor (FdWatch)
// or a deadline (Timer) — and the registration lives exactly as long as the RAII handle it gets back. run_once()
// is the only place the process waits: it sleeps until a watched descriptor is ready, the earliest armed timer
// is due, or a signal arrives, then calls the handlers of what is ready and of the timers that are due, and
// returns the signals that arrived (SignalBlock's contract: they are delivered only inside the wait).
//
// Handlers run on the loop's stack, one at a time; they may add and drop registrations, their own included
// (a watch dropped during a round gets no further event of that round, and its handler is destroyed only after
// it returns). The loop never reads, writes or closes a descriptor: the owner drops its FdWatch before it
// closes the descriptor. Handles must not outlive the loop.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "posix/poller.h"
#include "util/result.h"

namespace muster::posix {

class EventLoop {
 public:
  using FdHandler = std::function<void(uint32_t events)>;
  using TimerHandler = std::function<void(int64_t now_ms)>;
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

  // A descriptor's registration. set_events(0) keeps it registered but silent (back-pressure).
  class FdWatch {
   public:
    FdWatch() = default;
    FdWatch(FdWatch&& other) noexcept { *this = std::move(other); }
    FdWatch& operator=(FdWatch&& other) noexcept;
    FdWatch(const FdWatch&) = delete;
    FdWatch& operator=(const FdWatch&) = delete;
    ~FdWatch() { reset(); }

    bool active() const { return loop_ != nullptr; }
    uint32_t events() const;
    Result<void> set_events(uint32_t events);
    void reset();   // unregisters (before the owner closes the descriptor)
    void forget();  // the descriptor was closed already, so epoll forgot it: drops the registration only

   private:
    friend class EventLoop;
    FdWatch(EventLoop* loop, uint32_t slot) : loop_(loop), slot_(slot) {}
    EventLoop* loop_ = nullptr;
    uint32_t slot_ = 0;
  };

  // A deadline; its handler runs once per arm(), in the first round at or after the deadline.
  class Timer {
   public:
    Timer() = default;
    Timer(Timer&& other) noexcept { *this = std::move(other); }
    Timer& operator=(Timer&& other) noexcept;
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;
    ~Timer() { reset(); }

    void arm(int64_t deadline_ms);        // replaces an earlier deadline
    void arm_earlier(int64_t deadline_ms);  // keeps the earlier of the two
    void disarm();
    bool armed() const;
    int64_t deadline() const;  // kNever when disarmed
    void reset();

   private:
    friend class EventLoop;
    Timer(EventLoop* loop, uint32_t slot) : loop_(loop), slot_(slot) {}
    EventLoop* loop_ = nullptr;
    uint32_t slot_ = 0;
  };

  static Result<std::unique_ptr<EventLoop>> create();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  Result<FdWatch> watch(int fd, uint32_t events, FdHandler handler);
  Timer timer(TimerHandler handler);

  // One round: waits at most `max_wait_ms` (less when a timer is due sooner; -1: until something happens),
  // runs the handlers of what is ready and of the due timers, and returns the signals that arrived meanwhile
  // (SIGCHLD left out: whoever holds children reaps them each round with Process::try_wait).
  Result<std::vector<int>> run_once(int max_wait_ms);

  // Milliseconds until the earliest armed timer (0 when due), or -1 when none is armed.
  int64_t next_timer_in(int64_t now_ms) const;
  size_t watched_fds() const;  // for tests

 private:
  struct FdSlot {
    int fd = -1;
    uint32_t events = 0;
    uint32_t generation = 0;
    bool used = false;
    FdHandler handler;
  };
  struct TimerSlot {
    int64_t deadline = kNever;
    bool used = false;
    TimerHandler handler;
  };
  explicit EventLoop(Poller poller) : poller_(std::move(poller)) {}
  uint64_t token_of(uint32_t slot) const { return (uint64_t{fds_[slot].generation} << 32) | slot; }
  void drop_fd(uint32_t slot, bool closed);
  void drop_timer(uint32_t slot);
  void fire_timers(int64_t now_ms);

  void recycle();

  Poller poller_;
  // Deques: a handler that registers more never moves the one that is running.
  std::deque<FdSlot> fds_;
  std::deque<TimerSlot> timers_;
  std::vector<uint32_t> free_fds_, free_timers_;
  // Slots dropped since the last round ended: their handlers (one of them may be running) are destroyed and the
  // slots reused only after the round.
  std::vector<uint32_t> dropped_fds_, dropped_timers_;
};

}  // namespace muster::posix
