#include "launch/job_report.h"

#include <fmt/core.h>

#include "launch/exit_table.h"
#include "launch/flight_dumps.h"
#include "posix/signals.h"

namespace muster::launch {

std::string JobReport::flight_dumps(const Attempt& attempt) const {
  return format_flight_dumps(notes, [&](int rank) { return machine.roster().name(attempt.node_of_rank(rank)); },
                             run_dir);
}

// One line per earlier attempt and the nodes left out, when the job had more than one attempt.
std::string JobReport::history() const {
  const auto& attempts = machine.attempts();
  if (attempts.size() < 2) return "";
  std::string text = fmt::format("\nmuster: {} attempts:\n", attempts.size());
  for (const auto& attempt : attempts) {
    text += fmt::format("  attempt {} on {}: {}\n", attempt->number + 1, machine.roster().names(attempt->nodes),
                        attempt->decision.empty() ? fmt::format("exit {}", attempt->exit_code) : attempt->decision);
  }
  return text;
}

std::string JobReport::text(int exit_code) const {
  const Attempt* attempt = machine.current();
  if (!attempt || !attempt->gang) {
    return "muster: " + (machine.stop_reason().empty() ? std::string("interrupted before the job started")
                                                        : machine.stop_reason());
  }
  const Gang& gang = *attempt->gang;
  if (machine.interrupts() > 0) {
    return history() + fmt::format("\nmuster: {}; exit status per rank:\n{}",
                                   machine.stopped_by_request()
                                       ? std::string("stopped by muster stop")
                                       : "interrupted by " + std::string(posix::signal_name(machine.interrupt_signal())),
                                   format_exit_table(gang, attempt->plan));
  }
  if (attempt->stalled) {
    return history() + fmt::format("\nmuster: the job stalled and was stopped (exit {}); exit status per rank:\n{}",
                                   exit_code, format_exit_table(gang, attempt->plan)) +
           flight_dumps(*attempt);
  }
  if (gang.failed()) {
    std::string text = history() + "\nmuster: the job failed; exit status per rank:\n" + format_exit_table(gang, attempt->plan);
    int cause = *gang.root_cause();
    const auto tail = output.tail_lines(cause);
    if (!tail.empty()) {
      text += fmt::format("\nlast lines of rank {} (full log: {}):\n", cause, output.log_path(cause));
      for (const auto& line : tail) text += "  " + line + "\n";
    }
    if (diagnosis.entry) text += "\n" + diagnosis::format_diagnosis(diagnosis);
    return text + flight_dumps(*attempt);
  }
  if (options.quiet) return history();
  return history() + fmt::format("muster: all {} ranks finished; logs in {}", attempt->plan.world_size, run_dir);
}

}  // namespace muster::launch
