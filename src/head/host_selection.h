// Which hosts a command acts on, and their resolution into the selected nodes and slots: shared by plan, launch,
// doctor, sync, setup and gen. Reading the hostfile is I/O, so it happens here, not in the pure cluster layer;
// the flags that fill a HostSelection are the CLI's (cli/host_flags.h).
//
// Where the hosts come from, first match wins:
//   hostfile             DeepSpeed/MPI hostfile (`host slots=N`)
//   hosts                pdsh/Slurm hostlist (`node[1-4]`, `user@gpu[01-02]`, `node[1-8],-node3`);
//                        `^FILE` reads one hostlist expression per line from FILE (pdsh's `-w ^file`)
//   SLURM_JOB_NODELIST   inside a Slurm allocation, with SLURM_TASKS_PER_NODE as slots
//   localhost            otherwise, one node
//
// `@name` in the hostlist, in the excluded hosts and in a `^FILE` is the node group `name` (cluster/node_groups.h),
// from `groups`, which the CLI fills from the config files' [groups] tables.
#pragma once

#include <string>
#include <vector>

#include "cluster/node_groups.h"
#include "cluster/slot_filter.h"
#include "util/result.h"

namespace muster::head {

struct HostSelection {
  std::string hostfile;
  std::string hosts;
  std::string exclude_hosts;
  cluster::SlotSelection selection;
  cluster::NodeGroups groups;  // for `@name`
};

// The nodes and slots the selection picks. Hosts whose slot count the source does not give (a bare hostlist)
// get `selection.nproc_per_node` slots, or 1.
Result<std::vector<cluster::NodeSlots>> resolve_hosts(const HostSelection& options);

// Whether a hostfile or hostlist was given (else the hosts come from Slurm or are this machine).
bool hosts_given(const HostSelection& options);

}  // namespace muster::head
