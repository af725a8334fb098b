// Presents the findings of `muster doctor` (checks/checks.h): a readable report for a terminal, JSON for scripts,
// and the exit code. Pure: returns text/JSON, prints nothing.
//
// format_report: findings grouped by check, the checks with errors first, then warnings, then those that
// passed (otherwise in the order the checks ran); within a check, errors, warnings, then ok. Every non-ok
// finding shows its node (or "cluster"), its message and a `fix:` line; an ok finding with a suggestion (the
// NCCL_SOCKET_IFNAME to export) shows it as `use:`. Findings of one check that say the same thing (severity,
// message, fix) on several nodes are one line, the nodes folded: `WARN  node[3,5-8] (6): ...`; the nodes in the
// first line are folded too (cluster/node_set.h). The last line is the summary
// "N errors, M warnings, K checks passed" (K = ok findings; singular when 1). ANSI colors only when `color`.
//
// report_json schema (version 1; fields are only ever added):
//   {
//     "version": 1,
//     "nodes": ["node1", ...],                  // as the user wrote them, in order
//     "findings": [                              // in the order of format_report
//       {"severity": "ok" | "warning" | "error",
//        "check": "versions",                    // see Finding::check
//        "node": "node3",                        // "" = cluster-wide
//        "message": "...",                       // may contain newlines (tables)
//        "fix": "..."}                           // "" when there is nothing to do
//     ],
//     "summary": {"errors": 0, "warnings": 1, "ok": 11},
//     "bandwidth": {                             // only with `muster doctor --bandwidth` (bandwidth/table.h)
//       "mode": "ring" | "pairs", "seconds": 2.0, // streaming time per link, after a 0.25 s warm-up
//       "reference_mbps": 955.5,                 // what a healthy node reaches (bandwidth/verdict.h)
//       "nodes": [{"name": "node3", "interface": "eth0", "speed_mbps": 10000,  // -1: unknown
//                  "physical": false, "slow": true}],                   // slow: all its links are slow
//       "links": [{"from": "node2", "to": "node3", "ok": true, "mbps": 94.9,
//                  "rtt_us": 22.0,                // idle TCP round trip; -1 unknown
//                  "slow": true, "error": ""}]}, // error: why ok is false
//     "ssh": {                                   // when the node-to-node ssh check ran (ssh/matrix.h)
//       "mode": "fast" | "full", "pairs": 240,   // ordered pairs of nodes
//       "handshakes": 16,                        // real ssh handshakes it took (fast: the ring's, and one per
//                                                // pair in "confirmed")
//       "failed": [{"from": "node2", "to": "node6", "why": "..."}],     // ssh fails; why: what is missing
//       "confirmed": [{"from": "node1", "to": "node5", "why": "..."}]}  // fast: pairs a real ssh decided, and
//   }                                                                   // why the facts left them in doubt
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "util/finding.h"

namespace muster::doctor {

std::string format_report(const std::vector<Finding>& findings, const std::vector<std::string>& names,
                          bool color);

nlohmann::json report_json(const std::vector<Finding>& findings, const std::vector<std::string>& names);

// 0: all ok; 1: warnings, no errors; 2: at least one error.
int exit_code(const std::vector<Finding>& findings);

}  // namespace muster::doctor
