// `muster doctor` from the head: connects to the selected nodes, runs examine (examine.h) and prints the
// report (a table per node, or JSON). The entry point the CLI calls.
#pragma once

#include "doctor/examine.h"
#include "head/connect.h"
#include "util/result.h"

namespace muster::doctor {

struct DoctorOptions {
  head::ConnectOptions connect;
  ExamineOptions examine;
  bool json = false;
};

// The exit code of the findings (checks/report.h: 0 all good, 1 warnings, 2 errors), or an error when the nodes could
// not be reached at all.
Result<int> run_doctor(const DoctorOptions& options);

}  // namespace muster::doctor
