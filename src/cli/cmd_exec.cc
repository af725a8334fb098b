// `muster exec [HOSTS --] CMD...`: flags -> exec::ExecOptions; the work is exec::run_exec. Exit: the worst exit
// status of any node (124 timed out, 255 not reached), 130 on Ctrl-C.
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/project_config.h"
#include "cli/subcommands.h"
#include "exec/run_exec.h"

namespace muster::cli {
namespace {

void add_exec_flags(CLI::App& app, exec::ExecOptions& options, bool& gather, bool& diff, bool& json) {
  add_connect_options(app, options.connect, false);
  add_fanout_option(app, options.connect.fanout);
  app.add_flag("-b,--gather", gather,
               "gather identical outputs under one folded node set, node[1-3,5] (4), largest group first (clush -b)")
      ->group("Output");
  app.add_flag("--diff", diff, "print the most common output, then how every other group's output differs from it")
      ->group("Output");
  app.add_flag("--json", json, "print every node's output, ending and exit status as JSON")->group("Output");
  app.add_flag("--live", options.live_too, "with -b or --diff: also show every line as it arrives, behind its node (the default without them)")
      ->group("Output");
  app.add_option("--timeout", options.timeout_s,
                 "seconds the command may run on a node; then it is stopped there and the node named as timed out "
                 "(exit 124); 0: no limit")
      ->check(CLI::Range(0.0, 1e7))
      ->capture_default_str();
  app.add_option("--transport", options.transport,
                 "how to start the agents: auto (local for localhost; slurm inside a Slurm allocation when no -H/-w "
                 "is given; else ssh), ssh, slurm, local")
      ->check(CLI::IsMember({"auto", "ssh", "slurm", "local"}));
  app.add_option("--chdir", options.chdir, "working directory of the command (default: the node user's home, as ssh)")
      ->type_name("DIR");
  app.add_option("--env", options.env.set, "K=V to set for the command, or K to copy the head's value")
      ->group("Environment");
  app.add_option("--env-file", options.env.files, "dotenv-style file of K=V lines")->type_name("FILE")
      ->group("Environment");
  app.add_option("--env-prefix", options.env.prefixes, "also pass on the head's variables with this prefix")
      ->group("Environment");
  app.add_flag("--no-default-env", options.env.no_default_env,
               "pass on only what --env/--env-file/--env-prefix name (not launch's default prefixes)")
      ->group("Environment");
  app.add_option("--ssh-option", options.ssh_options, "extra ssh -o option, e.g. Port=2222")->group("ssh");
  app.add_flag("--no-multiplex", options.no_multiplex, "no ssh ControlMaster connection sharing")->group("ssh");
}

// `HOSTS -- CMD...`: a hostlist before `--` (only there, so a command may itself hold `--` after a first `--`).
std::optional<int> take_hosts_and_command(const CLI::App& app, exec::ExecOptions& options) {
  auto rest = app.remaining();
  if (rest.size() >= 2 && rest[1] == "--" && !rest[0].starts_with('-')) {
    options.connect.hosts.hosts = rest[0];
    options.connect.hosts.hostfile.clear();
    options.connect.hosts.groups = configured_node_groups();
    options.command.assign(rest.begin() + 2, rest.end());
    return std::nullopt;
  }
  return take_command(app, options.command);
}

}  // namespace

int run_exec(const std::vector<std::string>& args) {
  auto app = make_app("exec",
                      "Run a command once on every node, over the same transports, launch tree and environment policy "
                      "as launch; output live behind `node: ` prefixes, or gathered (-b) / diffed (--diff) by node "
                      "set. Nodes that failed, timed out or could not be reached are listed, folded, at the end.\n"
                      "  muster exec [options] [HOSTS --] CMD...\n"
                      "  muster exec -b -w 'node[1-64]' nvidia-smi -L\n"
                      "  muster exec @gpu -- 'df -h /data | tail -1'\n"
                      "One word is a shell command line (pipes, $VARS expand on the node); several words are the "
                      "command's arguments, passed exactly.");
  app->prefix_command();  // everything from the first non-option on is HOSTS -- CMD, or CMD
  exec::ExecOptions options;
  bool gather = false, diff = false, json = false;
  add_exec_flags(*app, options, gather, diff, json);
  if (auto code = parse_command_line(*app, args)) return *code;
  if (auto code = take_hosts_and_command(*app, options)) return *code;
  if (options.command.empty()) {
    fmt::print(stderr, "muster exec: no command given (usage: muster exec [options] [HOSTS --] CMD...)\n");
    return kExitUsage;
  }
  if (gather + diff + json > 1) {
    fmt::print(stderr, "muster exec: choose one of -b/--gather, --diff and --json\n");
    return kExitUsage;
  }
  options.view = gather ? exec::ExecView::gather
                 : diff ? exec::ExecView::diff
                 : json ? exec::ExecView::json
                        : exec::ExecView::live;
  auto code = exec::run_exec(options);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
