// What `muster gen` renders from besides the rank plan: the settings a user would otherwise type into each
// hand-written file (master address, precision, ZeRO stage, Slurm job fields, addresses, NFS paths, container
// image). A plain value filled by the CLI; every renderer in this folder is a pure function of
// (cluster::RankPlan, GenOptions) -> text, with no I/O, so the exact output is unit-tested.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "container/settings.h"

namespace muster::gen {

// One output file. Renderers return a list: whole-cluster kinds one file, per-node kinds one per node.
struct GeneratedFile {
  std::string name;    // file name when written into a directory (`-o DIR`), e.g. "node1.yaml"
  std::string text;    // the full content, ending in a newline
  int node_rank = -1;  // the node the file is for; -1 = the same file for the whole cluster

  bool operator==(const GeneratedFile&) const = default;
};

// ZeRO and precision, shared by `deepspeed` (ds_config JSON) and `accelerate` (its deepspeed_config block).
struct DeepSpeedOptions {
  int zero_stage = -1;          // 0-3; -1 = not asked for (accelerate: plain MULTI_GPU; deepspeed: 2)
  std::string mixed_precision;  // "no", "fp16", "bf16"; "" = accelerate "no", ds_config "auto"
  std::string offload_optimizer = "none";  // none, cpu, nvme (ZeRO stage >= 1)
  std::string offload_param = "none";      // none, cpu, nvme (ZeRO stage 3)
  std::string nvme_path = "/nvme";         // where nvme offload goes
  int gradient_accumulation = -1;          // -1 = "auto" in ds_config, 1 in accelerate
  int micro_batch = -1;           // per-GPU micro batch; -1 = HF "auto" values (see deepspeed_config.h)
  double gradient_clipping = -1;  // -1 = "auto" in ds_config, not written in accelerate
};

// `#SBATCH` fields of the sbatch script.
struct SlurmOptions {
  std::string time;                  // --time; "" = the partition's default
  std::string partition;             // "" = the cluster's default partition
  std::string output = "%x-%j.out";  // --output pattern
  int gpus_per_node = -1;            // -1 = the plan's workers per node
  bool pin_nodes = false;            // add --nodelist with the plan's hosts
  // `muster submit --signal USR1@90`: Slurm warns the batch script (the muster head, which `exec`s) that long
  // before the time limit (--signal=B:...); the head passes it to every rank (launch --forward-signals).
  std::string signal;
  bool requeue = false;              // --requeue: Slurm may requeue the job (preemption, a node failure)
  // `muster submit`: more #SBATCH lines, each an sbatch option with its values ("--mail-type END"; see
  // sbatch_option_lines), the muster that the script runs (default: `muster` from PATH) and more options for
  // its `muster launch` (--run-dir, --job-id).
  std::vector<std::string> extra_lines;
  std::string muster = "muster";
  std::vector<std::string> launch_options;
};

// Names and addresses of the nodes, for ssh-config, hosts and nfs.
struct NetworkOptions {
  std::map<std::string, std::string> addresses;  // node name -> IPv4 address (--address node1=10.0.0.1)
  std::vector<std::string> names;                // hosts: names for the nodes, in node order (--names)
  std::string user;                              // ssh-config User; "" = the host's own user@, if any
  std::string identity_file;                     // ssh-config IdentityFile; "" = none
  int ssh_port = -1;                             // ssh-config Port; -1 = not written
};

// The shared directory of `nfs`.
struct NfsOptions {
  std::string server;                   // node name of the server; "" = node 0
  std::string export_path = "/shared";  // directory exported by the server
  std::string mount_path;               // where clients mount it; "" = export_path
  std::string subnet;                   // clients' subnet (10.0.0.0/24); "" = list the client nodes
};

// `compose` and `k8s`.
struct ContainerOptions {
  std::string image;  // required
  // /dev/shm: N with k, m, g or t (1024-based). compose: "" = the host's IPC namespace and /dev/shm, as `muster
  // launch --container-shm-size` (container/settings.h); k8s: "" = container::kDefaultShmSize.
  std::string shm_size;
  std::vector<std::string> ulimits;  // compose: --container-ulimit NAME=SOFT[:HARD] or none, as launch takes them
  std::string workdir;               // working directory in the container; "" = the image's
  std::vector<std::string> volumes;  // compose: SRC:DST[:ro] bind mounts
  std::string k8s_namespace;         // k8s: metadata.namespace; "" = not written
};

struct GenOptions {
  std::string command_line;        // how the file was made, for its header: "muster gen accelerate -w ..."
  std::string job_name = "train";  // sbatch --job-name, compose service, k8s metadata.name
  std::string master_addr;         // "" = node 0's host name
  int master_port = 29500;
  std::vector<std::string> command;  // the training command (after `--`): sbatch, compose, k8s
  DeepSpeedOptions deepspeed;
  SlurmOptions slurm;
  NetworkOptions network;
  NfsOptions nfs;
  ContainerOptions container;
};

}  // namespace muster::gen
