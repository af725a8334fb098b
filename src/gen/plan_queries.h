// Questions several renderers ask of the rank plan: who is the master, does every node run the same number
// of workers (accelerate, Slurm and Kubernetes cannot express anything else), which devices a node uses, and
// what its per-node file is called. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

// --master-addr, or node 0's host name.
std::string master_address(const cluster::RankPlan& plan, const GenOptions& options);

// The number of workers every node runs. A usage error when nodes differ, naming two that do and saying
// why `kind` needs them equal (`reason`), and how to choose one count.
Result<int> uniform_workers(const cluster::RankPlan& plan, std::string_view kind, std::string_view reason);

// The devices a node's workers use, e.g. {1, 3}; and whether they are simply the first ones (0..n-1), which
// tools can express as a count instead of a list.
std::vector<int> node_devices(const cluster::NodePlan& node);
bool uses_first_devices(const cluster::NodePlan& node);

// "1,3": a device list as CUDA_VISIBLE_DEVICES and accelerate's gpu_ids write it.
std::string device_list(const cluster::NodePlan& node);

// The file a per-node kind writes for `node` into `-o DIR`: its host name plus `suffix` ("node1.yaml"),
// with "-<node rank>" added when two nodes share a host name (alice@node1 and bob@node1).
std::string node_file_name(const cluster::RankPlan& plan, const cluster::NodePlan& node,
                           std::string_view suffix);

// True for a dotted-quad IPv4 address (10.0.0.1).
bool is_ipv4_address(std::string_view text);

}  // namespace muster::gen
