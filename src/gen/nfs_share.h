// `muster gen nfs`: a directory shared by NFS from one node (the server, node 0 unless --server) to the
// others, as the multi-node how-tos set it up so that every node sees the same code, data and checkpoints.
// Two files:
//   muster.exports        the server's exports line (for /etc/exports.d/ or /etc/exports) for the clients'
//                         --subnet, or the client nodes one by one without it, with each of the how-tos'
//                         options (rw,sync,no_subtree_check,no_root_squash) and its security trade-off
//                         explained, and the server's commands;
//   <escaped path>.mount  the clients' systemd mount unit (its name is the mount path escaped as
//                         `systemd-escape -p --suffix=mount` does), with the clients' commands and the
//                         one-off `mount` alternative.
// Paths are absolute and limited to letters, digits and `/._-`. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

Result<std::vector<GeneratedFile>> render_nfs_share(const cluster::RankPlan& plan, const GenOptions& options);

// `systemd-escape -p`: "/mnt/shared-data" -> "mnt-shared\x2ddata", "/" -> "-".
std::string systemd_escape_path(std::string_view path);

}  // namespace muster::gen
