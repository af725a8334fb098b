// pdsh/Slurm hostlist expressions: the compact way clusters name many hosts at once.
//
//   node1,node2              items separated by commas (a comma inside brackets belongs to the bracket)
//   node[01-16,20]           bracket ranges; zero padding follows the lower bound (`[08-10]`: 08 09 10)
//   rack[1-2]-gpu[01-04]     several groups: every combination, first group varying slowest
//   alice@node[1-3]          a user prefix is kept on every name
//   node[1-8],-node3         items starting with '-' are removed from the result (pdsh); `-node3` also
//                            removes `alice@node3`, `-bob@node3` only that destination
//
// Names come out in the order written, duplicates dropped (the first stays). Order matters: it is node order,
// hence rank order. Pure; errors say `hostlist "expr", column N: ...`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::cluster {

// The most names one expression may produce, counting excluded ones, so a typo cannot exhaust memory.
inline constexpr size_t kMaxHostlistNames = 100'000;

// `what` names the expression in errors (a flag or an environment variable).
Result<std::vector<std::string>> expand_hostlist(std::string_view expr, std::string_view what = "hostlist");

// The Slurm-style form of `hosts`, keeping their order: adjacent names that differ only in their last number
// share a bracket (`node01,node02,node03,node07,gpu1` -> `node[01-03,07],gpu1`). For distinct, valid names,
// expand_hostlist(compress_hostlist(hosts)) == hosts.
std::string compress_hostlist(const std::vector<std::string>& hosts);

// `hosts` without the names `exclude_expr` expands to, matched as the '-' items of a hostlist are. Names
// that match nothing are ignored (pdsh -x); an empty expression excludes nothing.
Result<std::vector<std::string>> exclude_hosts(const std::vector<std::string>& hosts,
                                               std::string_view exclude_expr);

}  // namespace muster::cluster
