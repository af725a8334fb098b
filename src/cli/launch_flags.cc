// `muster launch`'s flags, written once for the command and for the config keys, man page and completion that
// come from it (the command line as data: docs/design/command-line.md).
#include "cli/launch_flags.h"

#include "cli/host_flags.h"

namespace muster::cli {
namespace {

void add_container_flags(CLI::App& app, launch::ContainerRequest& container) {
  const char* group = "Containers";
  app.add_option("--container-image", container.image,
                 "run the ranks inside a new container of IMAGE on every node (host network and IPC, GPUs, the "
                 "working directory mounted; removed at the end)")
      ->group(group);
  app.add_option("--container", container.existing,
                 "run the ranks inside the running container NAME on every node (e.g. started by compose)")
      ->group(group);
  app.add_option("--container-runtime", container.runtime, "podman or docker (default: podman if installed, else docker)")
      ->check(CLI::IsMember({"podman", "docker"}))
      ->group(group);
  app.add_option("--mount", container.mounts, "bind mount SRC:DST[:ro] into the container (repeatable)")->group(group);
  app.add_option("--container-ulimit", container.ulimits,
                 "NAME=SOFT[:HARD] instead of muster's memlock=-1 and stack=64MiB, or 'none' (repeatable)")
      ->group(group);
  app.add_option("--container-shm-size", container.shm_size,
                 "a private /dev/shm of this size (default: the node's IPC namespace and /dev/shm)")
      ->group(group);
  app.add_option("--container-gpus", container.gpus, "auto (the node's GPUs if it has any), all, none")
      ->check(CLI::IsMember({"auto", "all", "none"}))
      ->group(group);
  app.add_option("--container-pull", container.pull,
                 "never (default: images come from `muster image push`), missing, always")
      ->check(CLI::IsMember({"never", "missing", "always"}))
      ->group(group);
  app.add_option("--container-option", container.options,
                 "one more option for `podman|docker run` (or exec), verbatim, e.g. --container-option=--privileged")
      ->group(group);
}

void add_restart_flags(CLI::App& app, launch::LaunchRequest& request) {
  const char* group = "Restarts and spares";
  app.add_option("--nnodes", request.nnodes,
                 "N or MIN:MAX (torchrun's): the job runs on the first N usable hosts in host order and the other "
                 "hosts are spares; a node whose failure was its own is left out and a spare takes its place, or the "
                 "job shrinks, never below MIN (default: every host)")
      ->group(group);
  app.add_option("--max-restarts", request.job.max_restarts,
                 "restart the whole job up to N times after a failure a retry can help (see --restart-on)")
      ->check(CLI::Range(0, 1000))
      ->group(group);
  app.add_option("--restart-on", request.restart_on,
                 "node: retry node faults and failures not known to be the workload's, stop on the same exception "
                 "on every rank, a failure before the first training step or a --no-restart-exit-codes code; any: "
                 "retry every failure")
      ->check(CLI::IsMember({"node", "any"}))
      ->capture_default_str()
      ->group(group);
  app.add_option("--no-restart-exit-codes", request.no_restart_exit_codes,
                 "exit codes that mean the workload failed (e.g. 2,3): the job stops instead of restarting")
      ->type_name("LIST")
      ->group(group);
  app.add_option("--thrash-guard", request.thrash_guard,
                 "N/MINUTES: stop when the job failed N times within MINUTES, whatever --max-restarts allows; off")
      ->capture_default_str()
      ->group(group);
  app.add_option("--exclude-cooldown", request.exclude_cooldown_s,
                 "seconds before a node left out for its own failure may come back as a spare")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str()
      ->group(group);
  app.add_option("--forward-signals", request.forward_signals,
                 "signals to the head passed on to every rank, the job going on (Slurm's --signal=USR1@90 before "
                 "the time limit): USR1, USR2, TERM, HUP, INT, QUIT, or none")
      ->capture_default_str()
      ->group(group);
}

}  // namespace

void add_launch_flags(CLI::App& app, launch::LaunchRequest& request) {
  launch::LaunchOptions& job = request.job;
  add_host_options(app, request.hosts);
  app.add_flag("--per-node", job.per_node,
               "one process per node; {node_rank} {nnodes} {master_addr} {master_port} {nproc_per_node} "
               "{world_size} {job_id} are substituted in the command (for torchrun/deepspeed/accelerate)");
  app.add_option("--transport", request.transport,
                 "how to start the agents: auto (local for localhost; slurm (srun) inside a Slurm allocation when "
                 "no -H/-w is given; else ssh), ssh, slurm, local")
      ->check(CLI::IsMember({"auto", "ssh", "slurm", "local"}));
  app.add_option("--env", request.env_set, "K=V to set on every worker, or K to copy the head's value")
      ->group("Environment");
  app.add_option("--env-file", request.env_files, "dotenv-style file of K=V lines (like .deepspeed_env)")
      ->type_name("FILE")
      ->group("Environment");
  app.add_option("--env-prefix", request.env_prefixes, "also propagate the head's variables with this prefix")
      ->group("Environment");
  app.add_flag("--no-default-env", request.no_default_env,
               "propagate only what --env/--env-file/--env-prefix name (remote nodes; local workers inherit "
               "this machine's environment)")
      ->group("Environment");
  app.add_flag("--print-env", request.print_env, "print each node's environment and exit (secrets redacted)")
      ->group("Environment");
  app.add_flag("-d,--detach", request.detach,
               "run the job in the background: print its id once every rank has started and return (errors before "
               "that still come here); then muster ps, attach, logs, stop");
  app.add_flag("--preflight", request.preflight,
               "check the nodes first (the fast part of `muster doctor`: versions, names, code, interfaces, "
               "GPUs); start nothing if that finds errors");
  app.add_flag("--node-local-caches", job.node_local_caches,
               "give every node's job its own cache directories (HF_HOME, HF_DATASETS_CACHE, TORCH_HOME, "
               "TORCH_EXTENSIONS_DIR, TRITON_CACHE_DIR, XDG_CACHE_HOME) on that node, instead of one shared "
               "~/.cache on an NFS home; made 0700 on each node under --node-cache-dir");
  app.add_option("--node-cache-dir", job.node_cache_base,
                 "where --node-local-caches puts them on each node: DIR/<host name> (default "
                 "/tmp/muster-cache-<uid>; implies --node-local-caches)")
      ->type_name("DIR");
  app.add_option("--sync", request.sync_dirs,
                 "first make DIR identical at the same path on every node (as `muster sync DIR`; repeatable)")
      ->type_name("DIR");
  app.add_option("--sync-exclude", request.sync_excludes, "leave PATTERN out of --sync (gitignore syntax)");
  app.add_option("--chdir", request.chdir, "working directory of the workers (default: the current one)")
      ->type_name("DIR");
  app.add_option("--master-addr", job.master_addr,
                 "MASTER_ADDR (default: the address node 0 was reached on; slurm: node 0's name)");
  app.add_option("--grace", request.grace_s, "seconds between SIGTERM and SIGKILL when stopping ranks")
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--heartbeat-timeout", request.heartbeat_timeout_s, "seconds of silence before a node counts as lost")
      ->check(CLI::Range(0.5, 3600.0));
  app.add_option("--run-dir", job.run_dir, "where rank logs and manifest.json go; {job_id} is replaced (default muster-runs/{job_id})")
      ->type_name("DIR");
  app.add_option("--job-id", job.job_id, "job id (default: time + random)")->configurable(false);  // names one run
  app.add_option("--prefix", job.prefix_format, "line prefix: {node} {rank} {local_rank} {node_rank} {stream}")
      ->group("Output");
  app.add_option("--ranks", job.ranks_shown, "ranks shown on the terminal, e.g. 0 or 0,2-3 (all are logged)")
      ->group("Output");
  app.add_flag("-q,--quiet", job.quiet, "no muster notices except failures")->group("Output");
  app.add_option("--hang-timeout", request.hang_timeout_s,
                 "seconds without progress on any rank (no output, no MUSTER_PROGRESS_FILE touch) before muster takes "
                 "every rank's stack and, by default, stops the job (exit 124); 0: never")
      ->check(CLI::Range(0.0, 1e9))
      ->capture_default_str()
      ->group("Hangs and failures");
  app.add_option("--on-hang", request.on_hang, "after the stacks of a stalled job: kill (stop it, exit 124) or dump "
                                               "(let it run; dump again after another --hang-timeout)")
      ->check(CLI::IsMember({"kill", "dump"}))
      ->capture_default_str()
      ->group("Hangs and failures");
  app.add_flag("--no-diagnostics", [&request](int64_t) { request.job.diagnostics = false; },
               "do not set up the Python stack hook, faulthandler, error and progress files in the workers")
      ->group("Hangs and failures");
  app.add_option("--failures", request.failure_files,
                 "a failure catalogue of your own (TOML, like src/diagnosis/failures.toml), matched first; repeatable")
      ->allow_extra_args(false)
      ->group("Hangs and failures");
  add_container_flags(app, request.container);
  add_restart_flags(app, request);
  add_telemetry_flags(app, request);
  add_fanout_option(app, job.fanout);
  app.add_option("--connect-timeout", request.connect_timeout_s, "seconds to reach a node")->group("ssh")
      ->check(CLI::Range(1, 600));
  app.add_option("--ssh-option", request.ssh_options, "extra ssh -o option, e.g. Port=2222")->group("ssh");
  app.add_option("--ssh-config", request.ssh_config, "ssh -F FILE instead of ~/.ssh/config")->type_name("FILE")->group("ssh");
  app.add_flag("--no-multiplex", request.no_multiplex, "no ssh ControlMaster connection sharing")->group("ssh");
  add_ssh_kex_option(app, request.ssh_kex);
  add_ssh_cipher_option(app, request.ssh_cipher);
}


}  // namespace muster::cli
