// The report a launch ends with (on the terminal, in head.log for a detached job): how the job ended — all ranks
// finished, failed (the exit table, the root cause's last lines, the diagnosis, flight recorder dumps), stalled,
// interrupted — over its last attempt, and the attempts and exclusions before it when there were several.
#pragma once

#include <map>
#include <string>

#include "diagnosis/matcher.h"
#include "launch/job_machine.h"
#include "launch/launch_options.h"
#include "launch/launch_output.h"

namespace muster::launch {

struct JobReport {
  const LaunchOptions& options;
  const JobMachine& machine;
  const LaunchOutput& output;
  const std::map<int, std::map<std::string, std::string>>& notes;  // the last attempt's
  const diagnosis::Diagnosis& diagnosis;
  const std::string& run_dir;

  std::string text(int exit_code) const;

 private:
  std::string history() const;
  std::string flight_dumps(const Attempt& attempt) const;
};

}  // namespace muster::launch
