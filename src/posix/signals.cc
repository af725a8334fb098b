#include "posix/signals.h"

#include <pthread.h>
#include <signal.h>

#include <array>
#include <atomic>
#include <cassert>
#include <utility>

#include "posix/original_mask.h"

namespace muster::posix {

namespace {

// Process-wide by nature: a signal disposition belongs to the process, not to an object.
std::array<std::atomic<bool>, NSIG> g_pending{};
std::array<struct sigaction, NSIG> g_saved_actions{};
struct sigaction g_saved_sigpipe{};
sigset_t g_original_mask{};
std::atomic<bool> g_active{false};

static_assert(std::atomic<bool>::is_always_lock_free, "flags are set from a signal handler");

void on_signal(int signal) { g_pending[static_cast<size_t>(signal)].store(true, std::memory_order_relaxed); }

void install(int signal, void (*handler)(int), int flags, struct sigaction* saved) {
  struct sigaction action{};
  action.sa_handler = handler;
  action.sa_flags = flags;
  // An empty sa_mask lets every pending signal be delivered on the same return from the wait (a full one
  // would deliver one per wait); the handlers only store to atomics, so nesting them is harmless.
  sigemptyset(&action.sa_mask);
  [[maybe_unused]] int rc = ::sigaction(signal, &action, saved);
  assert(rc == 0 && "sigaction on a valid signal cannot fail");
}

}  // namespace

std::vector<int> SignalBlock::default_signals() { return {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT}; }

SignalBlock::SignalBlock() : SignalBlock(default_signals()) {}

SignalBlock::SignalBlock(std::vector<int> signals) : signals_(std::move(signals)) {
  [[maybe_unused]] bool was_active = g_active.exchange(true);
  assert(!was_active && "only one SignalBlock may exist at a time");
  sigset_t set;
  sigemptyset(&set);
  for (int signal : signals_) {
    assert(signal > 0 && signal < NSIG && signal != SIGKILL && signal != SIGSTOP);
    sigaddset(&set, signal);
  }
  // Block first, then install: no handler can run while the set is half installed.
  ::pthread_sigmask(SIG_BLOCK, &set, &g_original_mask);
  for (auto& flag : g_pending) flag.store(false);
  for (int signal : signals_) {
    int flags = signal == SIGCHLD ? SA_NOCLDSTOP : 0;
    install(signal, on_signal, flags, &g_saved_actions[static_cast<size_t>(signal)]);
  }
  install(SIGPIPE, SIG_IGN, 0, &g_saved_sigpipe);
}

SignalBlock::~SignalBlock() {
  // Mask first: whatever is still pending is delivered to the flag handlers, not to a default action.
  ::pthread_sigmask(SIG_SETMASK, &g_original_mask, nullptr);
  ::sigaction(SIGPIPE, &g_saved_sigpipe, nullptr);
  for (int signal : signals_) ::sigaction(signal, &g_saved_actions[static_cast<size_t>(signal)], nullptr);
  g_active.store(false);
}

std::vector<int> take_pending_signals() {
  std::vector<int> signals;
  for (size_t i = 1; i < g_pending.size(); ++i) {
    if (g_pending[i].exchange(false, std::memory_order_relaxed)) signals.push_back(static_cast<int>(i));
  }
  return signals;
}

namespace detail {

sigset_t original_signal_mask() {
  sigset_t mask;
  if (g_active.load()) return g_original_mask;
  ::pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  return mask;
}

}  // namespace detail

}  // namespace muster::posix
