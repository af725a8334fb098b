// How `muster doctor --bandwidth` shows its measurements: a text table for the report (a from × to matrix of
// Mbit/s for all pairs, a list of links with their round trip for a ring; slow links marked `!`) and the
// "bandwidth" object of the JSON report (schema in checks/report.h). Pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/bandwidth/model.h"
#include "doctor/bandwidth/verdict.h"

namespace muster::doctor {

std::string format_bandwidth_table(const std::vector<std::string>& names, const BandwidthResult& result,
                                   const BandwidthVerdict& verdict);

nlohmann::json bandwidth_json(const std::vector<std::string>& names, const BandwidthResult& result);

}  // namespace muster::doctor
