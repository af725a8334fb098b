#include "gen/gen_kinds.h"

#include <map>

#include <fmt/core.h>

#include "cluster/hostlist.h"
#include "gen/accelerate_config.h"
#include "gen/compose_file.h"
#include "gen/deepspeed_config.h"
#include "gen/etc_hosts.h"
#include "gen/hostfile_gen.h"
#include "gen/nfs_share.h"
#include "gen/pytorch_job.h"
#include "gen/sbatch_script.h"
#include "gen/ssh_config.h"
#include "util/edit_distance.h"
#include "util/shell_quote.h"

namespace muster::gen {
namespace {

void add_master(FlagVisitor& flags, GenOptions& options) {
  flags.text(options.master_addr, "--master-addr", "address of the master (node 0): default its host name");
  flags.number(options.master_port, "--master-port", "port of the master (default 29500)", 1, 65535);
}

void add_job_name(FlagVisitor& flags, GenOptions& options) {
  flags.text(options.job_name, "--job-name", "job name (default train)");
}

void add_deepspeed(FlagVisitor& flags, DeepSpeedOptions& ds) {
  flags.number(ds.zero_stage, "--zero-stage,--deepspeed-stage", "DeepSpeed ZeRO stage 0-3", 0, 3);
  flags.choice(ds.mixed_precision, "--mixed-precision", "no, fp16 or bf16", {"no", "fp16", "bf16"});
  flags.choice(ds.offload_optimizer, "--offload-optimizer", "none, cpu or nvme (ZeRO stage >= 1)",
               {"none", "cpu", "nvme"});
  flags.choice(ds.offload_param, "--offload-param", "none, cpu or nvme (ZeRO stage 3)", {"none", "cpu", "nvme"});
  flags.text(ds.nvme_path, "--nvme-path", "directory for nvme offload (default /nvme)");
  flags.number(ds.gradient_accumulation, "--gradient-accumulation", "gradient accumulation steps", 1, 1'000'000);
  flags.real(ds.gradient_clipping, "--gradient-clipping", "gradient clipping norm", 0.0, 1e9);
}

void add_address(FlagVisitor& flags, GenRequest& request) {
  flags.texts(request.addresses, "--address", "NODE=IP: a node's address (repeat, or comma-separate)", ',');
}

void add_container(FlagVisitor& flags, GenOptions& options) {
  flags.text(options.container.image, "--image", "container image with PyTorch and your code (required)");
  flags.text(options.container.shm_size, "--container-shm-size,--shm-size",
             "/dev/shm size, e.g. 512m; compose: a private IPC namespace with /dev/shm of this size (default: "
             "the node's, as launch --container-shm-size); k8s: default 16g");
  flags.text(options.container.workdir, "--workdir", "working directory inside the container");
  add_master(flags, options);
  add_job_name(flags, options);
}

void no_flags(FlagVisitor&, GenRequest&) {}

void accelerate_flags(FlagVisitor& flags, GenRequest& request) {
  add_master(flags, request.options);
  add_deepspeed(flags, request.options.deepspeed);
}

void deepspeed_flags(FlagVisitor& flags, GenRequest& request) {
  add_deepspeed(flags, request.options.deepspeed);
  flags.number(request.options.deepspeed.micro_batch, "--micro-batch",
               "per-GPU micro batch: concrete values for plain DeepSpeed instead of HF \"auto\"", 1, 1'000'000);
}

void sbatch_flags(FlagVisitor& flags, GenRequest& request) {
  add_job_name(flags, request.options);
  SlurmOptions& slurm = request.options.slurm;
  flags.text(slurm.time, "--time", "time limit, e.g. 24:00:00 (default: the partition's)");
  flags.text(slurm.partition, "--partition", "Slurm partition (default: the cluster's)");
  flags.number(slurm.gpus_per_node, "--gpus-per-node", "GPUs to allocate per node (default: workers per node)", 0,
               1024);
  flags.text(slurm.output, "--slurm-output", "#SBATCH --output pattern (default %x-%j.out)");
  flags.flag(slurm.pin_nodes, "--pin-nodes", "also ask for exactly these hosts (#SBATCH --nodelist)");
}

void ssh_config_flags(FlagVisitor& flags, GenRequest& request) {
  add_address(flags, request);
  NetworkOptions& network = request.options.network;
  flags.text(network.user, "--user", "ssh login on every node (default: the hostfile's user@)");
  flags.text(network.identity_file, "--identity-file", "ssh key, e.g. ~/.ssh/id_ed25519");
  flags.number(network.ssh_port, "--ssh-port", "ssh port on the nodes", 1, 65535);
}

void hosts_flags(FlagVisitor& flags, GenRequest& request) {
  add_address(flags, request);
  flags.text(request.names, "--names", "hostlist of names for the nodes, in order (for nodes listed by IP)");
}

void nfs_flags(FlagVisitor& flags, GenRequest& request) {
  add_address(flags, request);
  NfsOptions& nfs = request.options.nfs;
  flags.text(nfs.server, "--server", "node that exports the directory (default: node 0)");
  flags.text(nfs.export_path, "--export-path", "directory to share (default /shared)");
  flags.text(nfs.mount_path, "--mount-path", "where clients mount it (default: the export path)");
  flags.text(nfs.subnet, "--subnet", "clients' subnet, e.g. 10.0.0.0/24 (default: the client nodes)");
}

void compose_flags(FlagVisitor& flags, GenRequest& request) {
  add_container(flags, request.options);
  flags.texts(request.options.container.volumes, "--mount,--volume", "bind mount SRC:DST[:ro] (repeat)", '\0');
  flags.texts(request.options.container.ulimits, "--container-ulimit",
              "NAME=SOFT[:HARD] instead of muster's memlock=-1 and stack=64MiB, or 'none' (repeat), as launch",
              '\0');
}

void k8s_flags(FlagVisitor& flags, GenRequest& request) {
  add_container(flags, request.options);
  flags.text(request.options.container.k8s_namespace, "--namespace", "metadata.namespace of the job");
}

Result<Files> hostfile(const cluster::RankPlan& plan, const GenOptions& options) {
  return render_hostfile(plan, options);
}

Result<std::map<std::string, std::string>> parse_addresses(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> addresses;
  for (const auto& pair : pairs) {
    auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size()) {
      return make_error(ErrorKind::usage, "--address '{}' is not NODE=IP, e.g. node1=10.0.0.1", pair);
    }
    addresses[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return addresses;
}

}  // namespace

const std::vector<GenKind>& gen_kinds() {
  static const std::vector<GenKind> kinds = {
      {"hostfile", "DeepSpeed hostfile: host slots=N per node",
       "muster gen hostfile -w 'node[1-4]' --nproc-per-node 8", hostfile, no_flags, false, false, false},
      {"accelerate", "accelerate config YAML per node (machine_rank 0..N-1)",
       "muster gen accelerate -w 'node[1-2]' --nproc-per-node 8 --mixed-precision bf16 -o accelerate/",
       render_accelerate_configs, accelerate_flags, true, true, false},
      {"deepspeed", "ds_config JSON for ZeRO stage 0-3 (HF \"auto\" style)",
       "muster gen deepspeed --zero-stage 3 --offload-optimizer cpu -o ds_config.json", render_deepspeed_config,
       deepspeed_flags, false, false, false},
      {"sbatch", "Slurm batch script that runs muster launch on the allocation",
       "muster gen sbatch -w 'node[1-2]' --nproc-per-node 8 --time 24:00:00 -- python3 train.py",
       render_sbatch_script, sbatch_flags, false, false, true},
      {"ssh-config", "~/.ssh/config Host entries for the nodes",
       "muster gen ssh-config -w 'node[1-2]' --address node1=10.0.0.1,node2=10.0.0.2 --user ubuntu",
       render_ssh_config, ssh_config_flags, false, false, false},
      {"hosts", "/etc/hosts lines for the nodes (needs their addresses)",
       "muster gen hosts -w 'node[1-2]' --address node1=10.0.0.1,node2=10.0.0.2", render_etc_hosts, hosts_flags,
       false, false, false},
      {"nfs", "NFS export line and client mount unit for a shared directory",
       "muster gen nfs -w 'node[1-4]' --subnet 10.0.0.0/24 --export-path /shared -o nfs/", render_nfs_share,
       nfs_flags, false, false, false},
      {"compose", "docker compose file per node: GPUs, host network, torchrun",
       "muster gen compose -w 'node[1-2]' --nproc-per-node 8 --image IMAGE -o compose/ -- python3 train.py",
       render_compose_files, compose_flags, true, true, true},
      {"k8s", "Kubeflow PyTorchJob manifest: Master/Worker pods with GPUs",
       "muster gen k8s -w 'node[1-4]' --nproc-per-node 8 --image IMAGE -- python3 train.py", render_pytorch_job,
       k8s_flags, false, true, true},
  };
  return kinds;
}

const GenKind* find_gen_kind(std::string_view name) {
  for (const auto& kind : gen_kinds()) {
    if (name == kind.name) return &kind;
  }
  return nullptr;
}

std::string gen_kinds_usage() {
  std::string out =
      "usage: muster gen <kind> [host options] [kind options] [-o PATH] [-- command args...]\n\n"
      "Generate the files the multi-node how-tos write by hand, from the selected hosts\n"
      "(-H hostfile, -w hostlist, Slurm allocation; see 'muster plan').\n\nkinds:\n";
  for (const auto& kind : gen_kinds()) out += fmt::format("  {:<11} {}\n", kind.name, kind.summary);
  return out +
         "\nOutput goes to stdout, or to -o FILE; per-node kinds (accelerate, compose) write one file per\n"
         "node into -o DIR, or one node's file with --node-rank K.\n"
         "'muster gen <kind> --help' lists a kind's options.\n";
}

std::string unknown_gen_kind(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& kind : gen_kinds()) names.emplace_back(kind.name);
  std::string out = fmt::format("muster gen: unknown kind '{}'", name);
  if (auto guess = closest_match(name, names)) out += fmt::format(", did you mean '{}'?", *guess);
  return out + "\n\n" + gen_kinds_usage();
}

Result<void> finish_request(GenRequest& request, const std::vector<std::string>& args) {
  auto addresses = parse_addresses(request.addresses);
  if (!addresses) return addresses.error();
  request.options.network.addresses = *addresses;
  if (!request.names.empty()) {
    auto names = cluster::expand_hostlist(request.names, "--names");
    if (!names) return names.error();
    request.options.network.names = *names;
  }
  request.options.command_line = "muster gen " + shell_join(args);
  return {};
}

}  // namespace muster::gen
