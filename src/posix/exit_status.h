// ExitStatus: how a reaped child ended, as a closed set. It is a plain value: it knows nothing about the
// process it came from and never touches the OS. The shell mapping (128 + signal) lives here so that
// every layer reports a dead worker the same way.
#pragma once

#include <string>
#include <variant>

namespace muster::posix {

struct Exited {
  int code = 0;  // 0..255
  bool operator==(const Exited&) const = default;
};

struct Signaled {
  int signal = 0;
  bool core_dumped = false;
  bool operator==(const Signaled&) const = default;
};

using ExitStatus = std::variant<Exited, Signaled>;

// The code a shell would report in $?: the exit code, or 128 + signal number.
int shell_exit_code(const ExitStatus& status);
// "exit 3", "killed by SIGKILL", "killed by SIGSEGV (core dumped)".
std::string describe(const ExitStatus& status);
// "SIGKILL", "SIGRTMIN+2"; "signal 99" for a number that names no signal.
std::string signal_name(int signal);

}  // namespace muster::posix
