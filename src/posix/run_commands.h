// Runs a few short probe commands (nvidia-smi, nvcc, python) at once and collects what they print, each
// bounded by one deadline: a command still running when it passes has its process group SIGKILLed and is
// reported as timed out. Every child is reaped before run_commands() returns; nothing is left running.
//
// A small loop of its own (a Poller over the children's stdout/stderr pipes): for `muster node facts`' probes and
// the head's short Slurm commands (sbatch, scontrol), never inside an event loop that must not block.
#pragma once

#include <string>
#include <vector>

#include "posix/exit_status.h"

namespace muster::posix {

struct CommandOutcome {
  bool started = false;   // false: the program could not be run (missing, not executable); see `error`
  bool timed_out = false;
  ExitStatus status = Exited{-1};
  std::string out;        // stdout, complete
  std::string err;        // stderr, complete
  std::string error;      // why it did not start, or "timed out after N ms"

  bool succeeded() const { return started && !timed_out && status == ExitStatus(Exited{0}); }
};

// Runs every argv (argv[0] looked up in PATH) with stdin from /dev/null, concurrently, until all have
// exited or `timeout_ms` has passed. Outcomes come back in the order of `commands`.
std::vector<CommandOutcome> run_commands(const std::vector<std::vector<std::string>>& commands, int timeout_ms);

// A failed command for a message: why it did not start or that it timed out, else what it printed (stderr, or
// stdout when stderr is empty; trailing blanks dropped) and how it ended: "no such image (exit 125)".
std::string describe_failure(const CommandOutcome& outcome);

}  // namespace muster::posix
