// report.html: a run's telemetry and events as one self-contained page (docs/design/telemetry.md, "Report"): the
// data embedded as JSON, drawn by an inline script into SVG charts on one time axis — per-rank step time, compute
// and wait per step, steps/s; each node's CPU, memory, network, disk and load; each GPU's figures — with the job's
// events (start, restarts, exclusions, stalls, stragglers, failure) marked on every chart and listed. Nothing is
// fetched: no network, no library. Pure.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "telemetry/store.h"

namespace muster::telemetry {

inline constexpr size_t kReportPoints = 600;  // per series: enough for a chart's width

// The page's data: the store's series thinned to kReportPoints, its events, and `summary` (the job: id, command,
// nodes, exit code, stragglers), as the script reads it.
nlohmann::json report_data(const Store& store, const nlohmann::json& summary);
std::string render_report(const Store& store, const nlohmann::json& summary);

}  // namespace muster::telemetry
