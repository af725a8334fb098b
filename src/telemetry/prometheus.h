// The job's live figures in Prometheus' text exposition format (version 0.0.4), for node_exporter's textfile
// collector (`launch --metrics-textfile DIR/muster-<job>.prom`): one gauge family per figure, labelled with the
// job, node and rank. Rendered from a `top` snapshot with every rank (live_view.h). Pure.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace muster::telemetry {

std::string prometheus_text(const nlohmann::json& snapshot, const std::string& job_id);

}  // namespace muster::telemetry
