#include "posix/event_loop.h"

#include <algorithm>
#include <csignal>

#include "posix/clock.h"
#include "posix/signals.h"

namespace muster::posix {

// --- FdWatch ------------------------------------------------------------------------------------------------

EventLoop::FdWatch& EventLoop::FdWatch::operator=(FdWatch&& other) noexcept {
  if (this == &other) return *this;
  reset();
  loop_ = std::exchange(other.loop_, nullptr);
  slot_ = other.slot_;
  return *this;
}

uint32_t EventLoop::FdWatch::events() const { return loop_ ? loop_->fds_[slot_].events : 0; }

Result<void> EventLoop::FdWatch::set_events(uint32_t events) {
  if (!loop_) return make_error(ErrorKind::internal, "set_events on a watch that is not registered");
  auto& slot = loop_->fds_[slot_];
  if (slot.events == events) return {};
  slot.events = events;
  return loop_->poller_.modify(slot.fd, events, loop_->token_of(slot_));
}

void EventLoop::FdWatch::reset() {
  if (!loop_) return;
  loop_->drop_fd(slot_, false);
  loop_ = nullptr;
}

void EventLoop::FdWatch::forget() {
  if (!loop_) return;
  loop_->drop_fd(slot_, true);
  loop_ = nullptr;
}

// --- Timer ----------------------------------------------------------------------------------------------------

EventLoop::Timer& EventLoop::Timer::operator=(Timer&& other) noexcept {
  if (this == &other) return *this;
  reset();
  loop_ = std::exchange(other.loop_, nullptr);
  slot_ = other.slot_;
  return *this;
}

void EventLoop::Timer::arm(int64_t deadline_ms) {
  if (loop_) loop_->timers_[slot_].deadline = deadline_ms;
}

void EventLoop::Timer::arm_earlier(int64_t deadline_ms) {
  if (loop_) loop_->timers_[slot_].deadline = std::min(loop_->timers_[slot_].deadline, deadline_ms);
}

void EventLoop::Timer::disarm() { arm(kNever); }

bool EventLoop::Timer::armed() const { return deadline() != kNever; }

int64_t EventLoop::Timer::deadline() const { return loop_ ? loop_->timers_[slot_].deadline : kNever; }

void EventLoop::Timer::reset() {
  if (!loop_) return;
  loop_->drop_timer(slot_);
  loop_ = nullptr;
}

// --- EventLoop ------------------------------------------------------------------------------------------------

Result<std::unique_ptr<EventLoop>> EventLoop::create() {
  auto poller = Poller::create();
  if (!poller) return poller.error();
  return std::unique_ptr<EventLoop>(new EventLoop(std::move(*poller)));
}

EventLoop::~EventLoop() = default;  // handles must be gone by now (they point here)

Result<EventLoop::FdWatch> EventLoop::watch(int fd, uint32_t events, FdHandler handler) {
  uint32_t slot;
  if (!free_fds_.empty()) {
    slot = free_fds_.back();
    free_fds_.pop_back();
  } else {
    slot = static_cast<uint32_t>(fds_.size());
    fds_.emplace_back();
  }
  auto& entry = fds_[slot];
  if (auto added = poller_.add(fd, events, (uint64_t{entry.generation} << 32) | slot); !added) {
    free_fds_.push_back(slot);
    return added.error();
  }
  entry.fd = fd;
  entry.events = events;
  entry.used = true;
  entry.handler = std::move(handler);
  return FdWatch(this, slot);
}

EventLoop::Timer EventLoop::timer(TimerHandler handler) {
  uint32_t slot;
  if (!free_timers_.empty()) {
    slot = free_timers_.back();
    free_timers_.pop_back();
  } else {
    slot = static_cast<uint32_t>(timers_.size());
    timers_.emplace_back();
  }
  timers_[slot] = TimerSlot{kNever, true, std::move(handler)};
  return Timer(this, slot);
}

void EventLoop::drop_fd(uint32_t slot, bool closed) {
  auto& entry = fds_[slot];
  // A closed descriptor left epoll by itself; its number may belong to another registration by now.
  if (!closed) (void)poller_.remove(entry.fd);
  entry.fd = -1;
  entry.used = false;
  ++entry.generation;  // events of this round for the old registration are ignored
  dropped_fds_.push_back(slot);
}

void EventLoop::drop_timer(uint32_t slot) {
  auto& entry = timers_[slot];
  entry.used = false;
  entry.deadline = kNever;
  dropped_timers_.push_back(slot);
}

void EventLoop::recycle() {
  for (uint32_t slot : dropped_fds_) fds_[slot].handler = nullptr;
  for (uint32_t slot : dropped_timers_) timers_[slot].handler = nullptr;
  free_fds_.insert(free_fds_.end(), dropped_fds_.begin(), dropped_fds_.end());
  free_timers_.insert(free_timers_.end(), dropped_timers_.begin(), dropped_timers_.end());
  dropped_fds_.clear();
  dropped_timers_.clear();
}

int64_t EventLoop::next_timer_in(int64_t now_ms) const {
  int64_t earliest = kNever;
  for (const auto& timer : timers_) {
    if (timer.used) earliest = std::min(earliest, timer.deadline);
  }
  if (earliest == kNever) return -1;
  return std::max<int64_t>(earliest - now_ms, 0);
}

size_t EventLoop::watched_fds() const {
  return static_cast<size_t>(std::count_if(fds_.begin(), fds_.end(), [](const FdSlot& s) { return s.used; }));
}

void EventLoop::fire_timers(int64_t now_ms) {
  // By index: a handler may add timers (the vector grows) or drop any of them.
  for (size_t i = 0; i < timers_.size(); ++i) {
    if (!timers_[i].used || timers_[i].deadline > now_ms) continue;
    timers_[i].deadline = kNever;
    timers_[i].handler(now_ms);  // dropping it inside leaves it in place until recycle()
  }
}

Result<std::vector<int>> EventLoop::run_once(int max_wait_ms) {
  int64_t now = monotonic_ms();
  int64_t timer_in = next_timer_in(now);
  int wait = max_wait_ms;
  if (timer_in >= 0 && (wait < 0 || timer_in < wait)) wait = static_cast<int>(std::min<int64_t>(timer_in, 60'000));
  auto events = poller_.wait(wait);
  if (!events) return events.error();
  for (const auto& event : *events) {
    auto slot = static_cast<uint32_t>(event.token & 0xFFFFFFFFu);
    auto generation = static_cast<uint32_t>(event.token >> 32);
    if (slot >= fds_.size() || !fds_[slot].used || fds_[slot].generation != generation) continue;
    fds_[slot].handler(event.events);
  }
  fire_timers(monotonic_ms());
  recycle();
  std::vector<int> signals;
  for (int signal : take_pending_signals()) {
    if (signal != SIGCHLD) signals.push_back(signal);
  }
  return signals;
}

}  // namespace muster::posix
