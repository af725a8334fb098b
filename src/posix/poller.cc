#include "posix/poller.h"

#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "posix/original_mask.h"

namespace muster::posix {

static_assert(poll_readable == EPOLLIN && poll_writable == EPOLLOUT && poll_error == EPOLLERR &&
              poll_hangup == EPOLLHUP && poll_peer_closed == EPOLLRDHUP);

namespace {

Result<void> control(int epoll, int op, int fd, uint32_t events, uint64_t token, const char* what) {
  epoll_event event{};
  event.events = events;
  event.data.u64 = token;
  if (::epoll_ctl(epoll, op, fd, &event) != 0) {
    return make_error(ErrorKind::io, "cannot {} fd {} in the poller: {}", what, fd, std::strerror(errno));
  }
  return {};
}

// epoll_pwait delivers a pending signal only when it would otherwise sleep: when fds are ready at once, or
// the timeout is 0 or runs out, the kernel restores the blocked mask first and the signal stays pending.
// Under a steady stream of events that would starve Ctrl-C. So after such a return, open the mask briefly
// if anything deliverable is pending; the handlers run inside the first call.
void deliver_pending_signals(const sigset_t& original) {
  sigset_t pending;
  if (::sigpending(&pending) != 0) return;
  bool deliverable = false;
  for (int signal = 1; signal < NSIG && !deliverable; ++signal) {
    deliverable = sigismember(&pending, signal) == 1 && sigismember(&original, signal) == 0;
  }
  if (!deliverable) return;
  sigset_t blocked;
  ::pthread_sigmask(SIG_SETMASK, &original, &blocked);
  ::pthread_sigmask(SIG_SETMASK, &blocked, nullptr);
}

}  // namespace

Result<Poller> Poller::create() {
  int fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (fd < 0) return make_error(ErrorKind::io, "cannot create an epoll instance: {}", std::strerror(errno));
  return Poller(Fd(fd));
}

Result<void> Poller::add(int fd, uint32_t events, uint64_t token) {
  return control(epoll_.get(), EPOLL_CTL_ADD, fd, events, token, "add");
}

Result<void> Poller::modify(int fd, uint32_t events, uint64_t token) {
  return control(epoll_.get(), EPOLL_CTL_MOD, fd, events, token, "modify");
}

Result<void> Poller::remove(int fd) { return control(epoll_.get(), EPOLL_CTL_DEL, fd, 0, 0, "remove"); }

Result<std::vector<PollEvent>> Poller::wait(int timeout_ms) {
  std::array<epoll_event, kMaxEvents> ready{};
  sigset_t mask = detail::original_signal_mask();
  int n = ::epoll_pwait(epoll_.get(), ready.data(), static_cast<int>(ready.size()), timeout_ms, &mask);
  if (n < 0) {
    if (errno == EINTR) return std::vector<PollEvent>{};
    return make_error(ErrorKind::io, "waiting for events failed: {}", std::strerror(errno));
  }
  deliver_pending_signals(mask);
  std::vector<PollEvent> events;
  events.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) events.push_back(PollEvent{ready[i].data.u64, ready[i].events});
  return events;
}

}  // namespace muster::posix
