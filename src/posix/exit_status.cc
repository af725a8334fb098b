#include "posix/exit_status.h"

#include <signal.h>

#include <cstring>

#include <fmt/format.h>

namespace muster::posix {

namespace {

template <typename... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <typename... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace

int shell_exit_code(const ExitStatus& status) {
  return std::visit(Overloaded{[](const Exited& e) { return e.code; },
                               [](const Signaled& s) { return 128 + s.signal; }},
                    status);
}

std::string describe(const ExitStatus& status) {
  return std::visit(Overloaded{[](const Exited& e) { return fmt::format("exit {}", e.code); },
                               [](const Signaled& s) {
                                 return fmt::format("killed by {}{}", signal_name(s.signal),
                                                    s.core_dumped ? " (core dumped)" : "");
                               }},
                    status);
}

std::string signal_name(int signal) {
  if (signal >= SIGRTMIN && signal <= SIGRTMAX) {
    return signal == SIGRTMIN ? "SIGRTMIN" : fmt::format("SIGRTMIN+{}", signal - SIGRTMIN);
  }
  const char* abbrev = signal > 0 ? ::sigabbrev_np(signal) : nullptr;
  if (abbrev == nullptr) return fmt::format("signal {}", signal);
  return fmt::format("SIG{}", abbrev);
}

}  // namespace muster::posix
