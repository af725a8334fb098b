#include "cli/command.h"

#include <cstdio>
#include <string_view>

#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "util/edit_distance.h"

namespace muster::cli {
namespace {

int run_help(const std::vector<std::string>& args);

const Command* find_command(std::string_view name) {
  for (const auto& command : all_commands()) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

void print_overview() {
  fmt::print(
      "muster: multi-node training from one machine\n\n"
      "usage: muster <command> [options] [-- cmd args...]\n\n"
      "commands:\n");
  for (const auto& command : all_commands()) {
    if (!command.hidden) fmt::print("  {:<10} {}\n", command.name, command.summary);
  }
  fmt::print("\n'muster help <command>' or 'muster <command> --help' describes a command.\n");
}

int unknown_command(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& command : all_commands()) {
    if (!command.hidden) names.emplace_back(command.name);
  }
  fmt::print(stderr, "muster: unknown command '{}'", name);
  if (auto guess = closest_match(name, names)) fmt::print(stderr, ", did you mean '{}'?", *guess);
  fmt::print(stderr, "\nrun 'muster help' for the list of commands\n");
  return kExitUsage;
}

int run_help(const std::vector<std::string>& args) {
  auto app = make_app("help", "Describe the commands, or one command (as `muster COMMAND --help`).");
  std::string name;
  app->add_option("COMMAND", name, "the command to describe");
  if (auto code = parse_command_line(*app, args)) return *code;
  if (name.empty()) {
    print_overview();
    return kExitOk;
  }
  const Command* command = find_command(name);
  if (!command) return unknown_command(name);
  return command->run({"--help"});
}

}  // namespace

const std::vector<Command>& all_commands() {
  static const std::vector<Command> table = {
      {"launch", "start a job on every node, stream its logs, tear it down as one", run_launch},
      {"exec", "run a command on every node; output live, or gathered by node set (-b) or diffed", run_exec},
      {"submit", "submit a Slurm batch job that runs muster launch on N nodes; --wait follows it", run_submit},
      {"plan", "print the rank plan for a set of hosts (what launch would start where)", run_plan},
      {"doctor", "check the cluster and say what to fix, per node", run_doctor},
      {"sync", "copy a directory to the same path on every node, verified", run_sync},
      {"ps", "list your jobs on this machine: running, recent, and those whose head died", run_ps},
      {"attach", "show a running job's output live (Ctrl-C detaches; --stop stops it)", run_attach},
      {"logs", "print or follow (-f) a job's rank logs", run_logs},
      {"stop", "stop a running job as Ctrl-C on its head would (twice, or --kill: at once)", run_stop},
      {"stack", "every rank's stack of a running job, grouped, the odd ones named", run_stack},
      {"top", "a running job live: steps/s and step times per rank, node and GPU figures, stragglers", run_top},
      {"why", "what happened to a finished job, and what to do about it", run_why},
      {"report", "a job's run report: one HTML file of its step times, telemetry and events", run_report},
      {"image", "copy a container image to every node that lacks it (image push)", run_image},
      {"gen", "generate hostfiles, accelerate/DeepSpeed configs, sbatch scripts, ...", run_gen},
      {"setup", "set up passwordless ssh between nodes and /etc/hosts", run_setup},
      {"config", "show the settings each command takes from muster.toml files, and where each comes from", run_config,
       false, false},
      {"init", "write a commented muster.toml for the cluster you name", run_init, false, false},
      {"version", "print muster's version and build id", run_version, false, false},
      {"help", "describe the commands", run_help, false, false},
      {"agent", "internal: the per-node agent the head talks to", run_agent, true},
      {"node", "internal: the node-side operations of setup, doctor, launch and image push", run_node, true},
      {"__generate", "internal: man pages and shell completions, generated from this table", run_generate, true},
  };
  return table;
}

int run_cli(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_overview();
    return kExitUsage;
  }
  std::string name = args.front();
  args.erase(args.begin());
  if (name == "-h" || name == "--help") return run_help(args);
  if (name == "-V" || name == "--version") return run_version(args);
  const Command* command = find_command(name);
  if (!command) return unknown_command(name);
  return command->run(args);
}

}  // namespace muster::cli
