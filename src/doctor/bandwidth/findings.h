// The findings of `muster doctor --bandwidth` (check "bandwidth"): the verdict (verdict.h) put in words, with the
// measurements as a table (table.h) in the summary. Pure, like checks/checks.h.
#pragma once

#include <string>
#include <vector>

#include "doctor/bandwidth/model.h"
#include "util/finding.h"

namespace muster::doctor {

// One ok finding with the summary and the table (bandwidth/table.h), a warning per slow node, per other slow
// link, per link that could not be measured, per NIC far below its speed.
std::vector<Finding> check_bandwidth(const std::vector<std::string>& names, const BandwidthResult& result);

}  // namespace muster::doctor
