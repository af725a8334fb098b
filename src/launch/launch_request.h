// `muster launch` as the user asks for it: the flags, before anything is resolved. resolve_launch() turns it into
// the LaunchOptions the launcher runs (hosts -> rank plan, transport, env files read and the propagated
// environment computed once); run_launch_request() is the whole command: --print-env, --sync, --preflight, then
// the job.
#pragma once

#include <set>
#include <utility>

#include <string>
#include <vector>

#include "head/host_selection.h"
#include "launch/container_launch.h"
#include "launch/launch_options.h"
#include "util/result.h"

namespace muster::launch {

struct LaunchRequest {
  LaunchOptions job;  // what the flags set directly: command, per_node, master_addr, run_dir, job_id, output, ...
  head::HostSelection hosts;
  std::string transport = "auto";  // auto, ssh, slurm, local (head/connect.h)
  std::vector<std::string> env_set, env_files, env_prefixes;
  bool no_default_env = false;
  bool print_env = false;  // print each rank's environment and exit
  bool preflight = false;  // the fast part of `muster doctor` first; nothing starts on errors
  bool detach = false;     // the head goes on in the background once the job runs (launch/detach.h)
  std::vector<std::string> sync_dirs, sync_excludes;  // `muster sync` each dir first
  std::string chdir;       // empty: the current directory
  double grace_s = 5, heartbeat_timeout_s = 5;
  int connect_timeout_s = 10;
  std::vector<std::string> ssh_options;
  std::string ssh_config;
  std::string ssh_kex = "fast";  // transport/ssh_kex.h
  std::string ssh_cipher = "auto";  // transport/ssh_cipher.h
  bool no_multiplex = false;
  double hang_timeout_s = 600;            // see LaunchOptions::hang_timeout_ms
  std::string on_hang = "kill";           // kill or dump
  std::vector<std::string> failure_files;  // more failure catalogues (diagnosis/catalogue.h)
  ContainerRequest container;  // --container-image, --container, --mount, --container-*
  // Restarts and spares (launch/job_machine.h).
  std::string nnodes;                 // N or MIN:MAX (torchrun's --nnodes); empty: every host
  std::string restart_on = "node";    // node (what a retry can help) | any
  std::string no_restart_exit_codes;  // 1,2,...
  std::string thrash_guard = "3/10";  // N failures within M minutes stop the job; "off"
  double exclude_cooldown_s = 300;
  std::string forward_signals = "USR1,USR2";
};

// --nnodes: "4" -> {4, 4}, "2:4" -> {2, 4}; checked against the number of hosts.
Result<std::pair<int, int>> parse_nnodes(const std::string& text, size_t hosts);
// --forward-signals: "USR1,USR2,TERM" -> their numbers; "none" -> {}.
Result<std::set<int>> parse_signal_names(const std::string& text);
// The restart and spare flags into `options` (restart_flags.cc).
Result<void> resolve_restarts(const LaunchRequest& request, LaunchOptions& options);

Result<LaunchOptions> resolve_launch(const LaunchRequest& request);

// The exit code of the launch (the job's: gang.h), or an error that kept it from starting.
Result<int> run_launch_request(const LaunchRequest& request);

}  // namespace muster::launch
