// How `muster doctor --bandwidth` shows its measurements: a text table for the report (a from × to matrix of
// Mbit/s for all pairs, a list of links with their round trip for a ring; slow links marked `!`) and the
// "bandwidth" object of the JSON report (schema in report.h). Pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/bandwidth.h"
#include "doctor/bandwidth_check.h"

namespace muster::doctor {

std::string format_bandwidth_table(const std::vector<std::string>& names, const BandwidthResult& result,
                                   const BandwidthVerdict& verdict);

nlohmann::json bandwidth_json(const std::vector<std::string>& names, const BandwidthResult& result);

// "941 Mbit/s", "9.41 Gbit/s", "95.2 Mbit/s"
std::string format_rate(double mbps);

}  // namespace muster::doctor
