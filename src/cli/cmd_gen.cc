// `muster gen <kind>`: renders a file the multi-node how-tos have users write by hand (hostfile, accelerate
// configs, ds_config, sbatch script, ssh config, /etc/hosts, NFS, compose, PyTorchJob) from the selected
// hosts and the kind's flags, to stdout or -o. This file is the table of kinds and their flags; rendering and
// writing are src/gen's.
#include <fmt/core.h>

#include <map>

#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "cluster/hostlist.h"
#include "cluster/rank_plan.h"
#include "gen/accelerate_config.h"
#include "gen/compose_file.h"
#include "gen/deepspeed_config.h"
#include "gen/etc_hosts.h"
#include "gen/gen_output.h"
#include "gen/hostfile_gen.h"
#include "gen/nfs_share.h"
#include "gen/pytorch_job.h"
#include "gen/sbatch_script.h"
#include "gen/ssh_config.h"
#include "util/edit_distance.h"
#include "util/shell_quote.h"

namespace muster::cli {
namespace {

using Files = std::vector<gen::GeneratedFile>;

// Inputs that only the CLI sees: where the hosts come from, where the output goes, and flags in their
// command-line form before they become GenOptions.
struct GenFlags {
  head::HostSelection hosts;
  std::string output;
  int node_rank = -1;
  std::vector<std::string> addresses;  // NAME=ADDR
  std::string names;                   // hostlist
};

struct Kind {
  const char* name;
  const char* summary;
  const char* example;
  Result<Files> (*render)(const cluster::RankPlan&, const gen::GenOptions&);
  void (*add_options)(CLI::App&, gen::GenOptions&, GenFlags&);
  bool per_node;       // one file per node: -o names a directory, --node-rank picks one node's file
  bool yaml;           // several files on stdout are separated as YAML documents
  bool takes_command;  // the training command follows `--`
};

void add_master(CLI::App& app, gen::GenOptions& options) {
  app.add_option("--master-addr", options.master_addr,
                 "address of the master (node 0): default its host name");
  app.add_option("--master-port", options.master_port, "port of the master (default 29500)")
      ->check(CLI::Range(1, 65535));
}

void add_job_name(CLI::App& app, gen::GenOptions& options) {
  app.add_option("--job-name", options.job_name, "job name (default train)");
}

void add_deepspeed(CLI::App& app, gen::DeepSpeedOptions& ds) {
  app.add_option("--zero-stage,--deepspeed-stage", ds.zero_stage, "DeepSpeed ZeRO stage 0-3")
      ->check(CLI::Range(0, 3));
  app.add_option("--mixed-precision", ds.mixed_precision, "no, fp16 or bf16")
      ->check(CLI::IsMember({"no", "fp16", "bf16"}));
  app.add_option("--offload-optimizer", ds.offload_optimizer, "none, cpu or nvme (ZeRO stage >= 1)")
      ->check(CLI::IsMember({"none", "cpu", "nvme"}));
  app.add_option("--offload-param", ds.offload_param, "none, cpu or nvme (ZeRO stage 3)")
      ->check(CLI::IsMember({"none", "cpu", "nvme"}));
  app.add_option("--nvme-path", ds.nvme_path, "directory for nvme offload (default /nvme)");
  app.add_option("--gradient-accumulation", ds.gradient_accumulation, "gradient accumulation steps")
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--gradient-clipping", ds.gradient_clipping, "gradient clipping norm")
      ->check(CLI::Range(0.0, 1e9));
}

void add_address(CLI::App& app, GenFlags& flags) {
  app.add_option("--address", flags.addresses, "NODE=IP: a node's address (repeat, or comma-separate)")
      ->delimiter(',');
}

void add_container(CLI::App& app, gen::GenOptions& options) {
  app.add_option("--image", options.container.image, "container image with PyTorch and your code (required)");
  app.add_option("--container-shm-size,--shm-size", options.container.shm_size,
                 "/dev/shm size, e.g. 512m; compose: a private IPC namespace with /dev/shm of this size (default: "
                 "the node's, as launch --container-shm-size); k8s: default 16g");
  app.add_option("--workdir", options.container.workdir, "working directory inside the container");
  add_master(app, options);
  add_job_name(app, options);
}

void no_options(CLI::App&, gen::GenOptions&, GenFlags&) {}

void accelerate_options(CLI::App& app, gen::GenOptions& options, GenFlags&) {
  add_master(app, options);
  add_deepspeed(app, options.deepspeed);
}

void deepspeed_options(CLI::App& app, gen::GenOptions& options, GenFlags&) {
  add_deepspeed(app, options.deepspeed);
  app.add_option("--micro-batch", options.deepspeed.micro_batch,
                 "per-GPU micro batch: concrete values for plain DeepSpeed instead of HF \"auto\"")
      ->check(CLI::Range(1, 1'000'000));
}

void sbatch_options(CLI::App& app, gen::GenOptions& options, GenFlags&) {
  add_job_name(app, options);
  gen::SlurmOptions& slurm = options.slurm;
  app.add_option("--time", slurm.time, "time limit, e.g. 24:00:00 (default: the partition's)");
  app.add_option("--partition", slurm.partition, "Slurm partition (default: the cluster's)");
  app.add_option("--gpus-per-node", slurm.gpus_per_node,
                 "GPUs to allocate per node (default: workers per node)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--slurm-output", slurm.output, "#SBATCH --output pattern (default %x-%j.out)");
  app.add_flag("--pin-nodes", slurm.pin_nodes, "also ask for exactly these hosts (#SBATCH --nodelist)");
}

void ssh_config_options(CLI::App& app, gen::GenOptions& options, GenFlags& flags) {
  add_address(app, flags);
  app.add_option("--user", options.network.user, "ssh login on every node (default: the hostfile's user@)");
  app.add_option("--identity-file", options.network.identity_file, "ssh key, e.g. ~/.ssh/id_ed25519");
  app.add_option("--ssh-port", options.network.ssh_port, "ssh port on the nodes")
      ->check(CLI::Range(1, 65535));
}

void hosts_options(CLI::App& app, gen::GenOptions&, GenFlags& flags) {
  add_address(app, flags);
  app.add_option("--names", flags.names,
                 "hostlist of names for the nodes, in order (for nodes listed by IP)");
}

void nfs_options(CLI::App& app, gen::GenOptions& options, GenFlags& flags) {
  add_address(app, flags);
  gen::NfsOptions& nfs = options.nfs;
  app.add_option("--server", nfs.server, "node that exports the directory (default: node 0)");
  app.add_option("--export-path", nfs.export_path, "directory to share (default /shared)");
  app.add_option("--mount-path", nfs.mount_path, "where clients mount it (default: the export path)");
  app.add_option("--subnet", nfs.subnet, "clients' subnet, e.g. 10.0.0.0/24 (default: the client nodes)");
}

void compose_options(CLI::App& app, gen::GenOptions& options, GenFlags&) {
  add_container(app, options);
  app.add_option("--mount,--volume", options.container.volumes, "bind mount SRC:DST[:ro] (repeat)");
  app.add_option("--container-ulimit", options.container.ulimits,
                 "NAME=SOFT[:HARD] instead of muster's memlock=-1 and stack=64MiB, or 'none' (repeat), as launch");
}

void k8s_options(CLI::App& app, gen::GenOptions& options, GenFlags&) {
  add_container(app, options);
  app.add_option("--namespace", options.container.k8s_namespace, "metadata.namespace of the job");
}

Result<Files> render_hostfile(const cluster::RankPlan& plan, const gen::GenOptions& options) {
  return gen::render_hostfile(plan, options);
}

const std::vector<Kind>& all_kinds() {
  static const std::vector<Kind> kinds = {
      {"hostfile", "DeepSpeed hostfile: host slots=N per node",
       "muster gen hostfile -w 'node[1-4]' --nproc-per-node 8", render_hostfile, no_options, false, false,
       false},
      {"accelerate", "accelerate config YAML per node (machine_rank 0..N-1)",
       "muster gen accelerate -w 'node[1-2]' --nproc-per-node 8 --mixed-precision bf16 -o accelerate/",
       gen::render_accelerate_configs, accelerate_options, true, true, false},
      {"deepspeed", "ds_config JSON for ZeRO stage 0-3 (HF \"auto\" style)",
       "muster gen deepspeed --zero-stage 3 --offload-optimizer cpu -o ds_config.json",
       gen::render_deepspeed_config, deepspeed_options, false, false, false},
      {"sbatch", "Slurm batch script that runs muster launch on the allocation",
       "muster gen sbatch -w 'node[1-2]' --nproc-per-node 8 --time 24:00:00 -- python3 train.py",
       gen::render_sbatch_script, sbatch_options, false, false, true},
      {"ssh-config", "~/.ssh/config Host entries for the nodes",
       "muster gen ssh-config -w 'node[1-2]' --address node1=10.0.0.1,node2=10.0.0.2 --user ubuntu",
       gen::render_ssh_config, ssh_config_options, false, false, false},
      {"hosts", "/etc/hosts lines for the nodes (needs their addresses)",
       "muster gen hosts -w 'node[1-2]' --address node1=10.0.0.1,node2=10.0.0.2", gen::render_etc_hosts,
       hosts_options, false, false, false},
      {"nfs", "NFS export line and client mount unit for a shared directory",
       "muster gen nfs -w 'node[1-4]' --subnet 10.0.0.0/24 --export-path /shared -o nfs/",
       gen::render_nfs_share, nfs_options, false, false, false},
      {"compose", "docker compose file per node: GPUs, host network, torchrun",
       "muster gen compose -w 'node[1-2]' --nproc-per-node 8 --image IMAGE -o compose/ -- python3 train.py",
       gen::render_compose_files, compose_options, true, true, true},
      {"k8s", "Kubeflow PyTorchJob manifest: Master/Worker pods with GPUs",
       "muster gen k8s -w 'node[1-4]' --nproc-per-node 8 --image IMAGE -- python3 train.py",
       gen::render_pytorch_job, k8s_options, false, true, true},
  };
  return kinds;
}

void print_kinds(std::FILE* out) {
  fmt::print(out,
             "usage: muster gen <kind> [host options] [kind options] [-o PATH] [-- command args...]\n\n"
             "Generate the files the multi-node how-tos write by hand, from the selected hosts\n"
             "(-H hostfile, -w hostlist, Slurm allocation; see 'muster plan').\n\nkinds:\n");
  for (const auto& kind : all_kinds()) fmt::print(out, "  {:<11} {}\n", kind.name, kind.summary);
  fmt::print(
      out,
      "\nOutput goes to stdout, or to -o FILE; per-node kinds (accelerate, compose) write one file per\n"
      "node into -o DIR, or one node's file with --node-rank K.\n"
      "'muster gen <kind> --help' lists a kind's options.\n");
}

int unknown_kind(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& kind : all_kinds()) names.emplace_back(kind.name);
  fmt::print(stderr, "muster gen: unknown kind '{}'", name);
  if (auto guess = closest_match(name, names)) fmt::print(stderr, ", did you mean '{}'?", *guess);
  fmt::print(stderr, "\n\n");
  print_kinds(stderr);
  return kExitUsage;
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

// GenOptions from the flags that needed more than a copy: addresses, names, the command line.
Result<void> finish_options(const GenFlags& flags, const std::vector<std::string>& args,
                            gen::GenOptions& options) {
  auto addresses = parse_addresses(flags.addresses);
  if (!addresses) return addresses.error();
  options.network.addresses = *addresses;
  if (!flags.names.empty()) {
    auto names = cluster::expand_hostlist(flags.names, "--names");
    if (!names) return names.error();
    options.network.names = *names;
  }
  options.command_line = "muster gen " + shell_join(args);
  return {};
}

// The kind's flags: hosts, output, and its own options, which fill `options` and `flags` when parsed.
std::unique_ptr<CLI::App> make_kind_app(const Kind& kind, GenFlags& flags, gen::GenOptions& options) {
  auto app = make_app(std::string("gen ") + kind.name, fmt::format("{}.\n  {}", kind.summary, kind.example));
  if (kind.takes_command) app->prefix_command();  // the training command after `--` is kept as given
  add_host_options(*app, flags.hosts);
  app->add_option(
         "-o,--output", flags.output,
         kind.per_node ? "output file, or directory for one file per node" : "output file (default: stdout)")
      ->type_name("FILE")
      ->group("Output");
  if (kind.per_node) {
    app->add_option("--node-rank", flags.node_rank, "only this node's file")
        ->group("Output")
        ->check(CLI::NonNegativeNumber);
  }
  kind.add_options(*app, options, flags);
  return app;
}

int run_kind(const Kind& kind, const std::vector<std::string>& args) {
  GenFlags flags;
  gen::GenOptions options;
  auto app = make_kind_app(kind, flags, options);
  std::vector<std::string> kind_args(args.begin() + 1, args.end());
  if (auto code = parse_command_line(*app, kind_args)) return *code;

  if (auto code = take_command(*app, options.command)) return *code;
  if (auto finished = finish_options(flags, args, options); !finished) return report_error(finished.error());
  auto nodes = head::resolve_hosts(flags.hosts);
  if (!nodes) return report_error(nodes.error());
  cluster::RankPlan plan = cluster::make_rank_plan(*nodes);
  auto files = kind.render(plan, options);
  if (!files) return report_error(files.error());
  gen::OutputChoice choice{flags.output, flags.node_rank, kind.per_node, kind.yaml};
  if (auto emitted = gen::emit_generated(std::move(*files), choice, plan.nodes.size()); !emitted) {
    return report_error(emitted.error());
  }
  return kExitOk;
}

}  // namespace

int run_gen(const std::vector<std::string>& args) {
  if (args.empty()) {
    print_kinds(stderr);
    return kExitUsage;
  }
  if (args[0] == "-h" || args[0] == "--help") {
    if (describing_commands()) {  // man pages, completions, config keys: every kind's app
      for (const auto& kind : all_kinds()) run_kind(kind, {kind.name, "--help"});
      return kExitOk;
    }
    print_kinds(stdout);
    return kExitOk;
  }
  for (const auto& kind : all_kinds()) {
    if (args[0] == kind.name) return run_kind(kind, args);
  }
  return unknown_kind(args[0]);
}

}  // namespace muster::cli
