// The run report of a job (docs/design/telemetry.md "Report"): `muster report [JOB]` renders report.html again from
// the run directory (telemetry.zst, saved every minute while the job runs, and manifest.json once it ended), and
// `muster why` names the job's stragglers from its manifest.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace muster::launch {

struct ReportOptions {
  std::string which;   // run dir or job id; empty: the newest job of this user on this machine
  std::string output;  // empty: <run dir>/report.html
};

// Writes the report; returns its path.
Result<std::string> write_run_report(const ReportOptions& options);

// The stragglers the job named ("" when the manifest has no telemetry), for `why`.
std::string format_stragglers(const nlohmann::json& manifest);

}  // namespace muster::launch
