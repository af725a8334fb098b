// The host-selection flags shared by plan, launch, doctor and sync, and their resolution into the
// selected nodes and slots. Reading the hostfile is I/O, so it happens here, not in the pure cluster layer.
//
// Where the hosts come from, first match wins:
//   -H/--hostfile FILE   DeepSpeed/MPI hostfile (`host slots=N`)
//   -w/--hosts EXPR      pdsh/Slurm hostlist (`node[1-4]`, `user@gpu[01-02]`, `node[1-8],-node3`);
//                        `^FILE` reads one hostlist expression per line from FILE (pdsh's `-w ^file`)
//   SLURM_JOB_NODELIST   inside a Slurm allocation, with SLURM_TASKS_PER_NODE as slots
//   localhost            otherwise, one node
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cluster/slot_filter.h"
#include "util/result.h"

namespace muster::cli {

struct HostOptions {
  std::string hostfile;
  std::string hosts;
  std::string exclude_hosts;
  cluster::SlotSelection selection;
};

// `slot_filters` false leaves out the options about slots (--include/--exclude/--nproc-per-node), for commands
// that act on nodes, not ranks (sync, whose --exclude is rsync's).
void add_host_options(CLI::App& app, HostOptions& options, bool slot_filters = true);

// A file the user named on the command line (hostfile, env file), whole; a usage error naming it otherwise.
Result<std::string> read_text_file(const std::string& path);

// The nodes and slots the options select. `default_slots` applies to hosts whose slot count the source
// does not give (a bare hostlist): launch passes the GPU count or 1.
Result<std::vector<cluster::NodeSlots>> resolve_hosts(const HostOptions& options);

}  // namespace muster::cli
