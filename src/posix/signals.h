// SignalBlock: the process's signal contract, held for as long as the event loop runs (construct it
// first thing in main, before any thread starts; threads created later inherit the blocked mask).
//
// While it lives, the chosen signals (by default SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT) are blocked
// and can only be delivered inside Poller::wait, which waits with the original mask (epoll_pwait); a
// delivery makes that wait return early. Their handlers do nothing but set a flag; the loop collects the
// flags with take_pending_signals() after every wait and acts on them in ordinary code. SIGPIPE is
// ignored, so a write to a closed pipe or socket fails with EPIPE instead of killing the process.
// Children started by spawn() get the original mask and default dispositions back before exec.
//
// It must never be nested or used from two threads, and nothing else in muster may install a signal
// handler, change the mask, or call wait(-1)/waitpid(-1) (that would steal children from Process).
// On destruction it restores the original mask (signals still pending are delivered to the flag
// handlers, not to their default actions) and then the original dispositions.
#pragma once

#include <vector>

namespace muster::posix {

class SignalBlock {
 public:
  // SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT.
  static std::vector<int> default_signals();

  SignalBlock();
  explicit SignalBlock(std::vector<int> signals);
  ~SignalBlock();
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

  const std::vector<int>& signals() const { return signals_; }

 private:
  std::vector<int> signals_;
};

// The signals whose handler ran since the previous call, ascending, each at most once (two SIGCHLDs
// between calls read as one: after SIGCHLD, poll every live Process with try_wait()).
std::vector<int> take_pending_signals();

}  // namespace muster::posix
