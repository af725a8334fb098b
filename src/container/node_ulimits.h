// The ulimits a job's container gets on one node, decided there (enter.h) from what the head asked (spec.h) and
// what the node allows. With any --ulimit on its command line, podman sets nofile and nproc to its own maximum
// (1,048,576) unless they are given too, and runc then fails on a node whose hard limits are lower wherever no
// process may raise a hard limit ("error setting rlimit type 7: operation not permitted"; Debian's 20,000 open
// files under podman 4.3 here). So with podman both are given explicitly, at what a process started on that node
// gets anyway (posix/limits.h child_open_file_limit, child_process_limit: nproc never above pid_max, which is
// also the most podman itself runs with): the container has the node's limits, as a bare-metal job would.
// A limit the job asked for by name (--container-ulimit nofile=...) is left as asked, and so is a container
// with no ulimit at all (--container-ulimit none: the runtime's own defaults). docker is left alone: its daemon
// sets the defaults and raises limits itself. Pure.
#pragma once

#include <cstdint>
#include <vector>

#include "container/spec.h"

namespace muster::container {

struct NodeLimits {
  uint64_t nofile_soft = 0, nofile_hard = 0;  // 0: unknown (nothing added)
  uint64_t nproc_soft = 0, nproc_hard = 0;    // UINT64_MAX: unlimited
};

// `always`: also when nothing is asked (a probe: podman applies its maximum to a container without any --ulimit
// too, unless a containers.conf says otherwise).
std::vector<Ulimit> ulimits_for_node(std::vector<Ulimit> asked, Runtime runtime, const NodeLimits& node,
                                     bool always = false);

// This node's (posix/limits.h): what a process started here gets. Not pure.
NodeLimits this_node_limits();

}  // namespace muster::container
