// Poller: the one place a muster process waits. It owns an epoll instance; the event loop registers fds
// with a caller-chosen token, and wait() returns which tokens are ready. Everything else in muster is
// passive: it exposes fds and reacts when the loop tells it they are ready, and never blocks.
//
// wait() waits with the mask SignalBlock replaced (epoll_pwait), so the blocked signals are delivered
// there and only there. A delivery ends the wait early, possibly with no events; after every wait the
// loop must call take_pending_signals(). Every wait delivers what is pending, even when fds are ready at
// once or the timeout is 0, so a busy loop cannot starve a Ctrl-C.
//
// The Poller never reads, writes or closes a registered fd: the owner of an fd must remove() it before
// closing it (epoll forgets a closed fd only once every duplicate of it is closed, e.g. one inherited by
// a child, so closing alone is not enough).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "posix/fd.h"
#include "util/result.h"

namespace muster::posix {

// Event bits; they equal the EPOLL* values (checked in poller.cc) so callers need no <sys/epoll.h>.
inline constexpr uint32_t poll_readable = 0x001;     // EPOLLIN
inline constexpr uint32_t poll_writable = 0x004;     // EPOLLOUT
inline constexpr uint32_t poll_error = 0x008;        // EPOLLERR: always reported, need not be asked for
inline constexpr uint32_t poll_hangup = 0x010;       // EPOLLHUP: always reported, need not be asked for
inline constexpr uint32_t poll_peer_closed = 0x2000; // EPOLLRDHUP

// A reader should treat poll_hangup and poll_error like poll_readable: read until eof or an error, as a
// closed pipe may report only poll_hangup.
struct PollEvent {
  uint64_t token = 0;
  uint32_t events = 0;
};

class Poller {
 public:
  static Result<Poller> create();

  Result<void> add(int fd, uint32_t events, uint64_t token);
  Result<void> modify(int fd, uint32_t events, uint64_t token);
  Result<void> remove(int fd);

  // The most events one wait() returns. A relay watches ~80 descriptors (31 children's and its workers' pipes);
  // callers check timers after each round and must not judge a descriptor left for the next round as silent.
  static constexpr int kMaxEvents = 256;

  // Waits up to timeout_ms (-1: no limit, 0: just look) for registered fds to become ready. Returns the
  // ready ones (at most kMaxEvents per call; the rest come next call), or an empty list on timeout or when a
  // signal was delivered.
  Result<std::vector<PollEvent>> wait(int timeout_ms);

 private:
  explicit Poller(Fd epoll) : epoll_(std::move(epoll)) {}
  Fd epoll_;
};

}  // namespace muster::posix
