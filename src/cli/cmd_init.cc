// `muster init [host options] [-o FILE | --user] [--force]`: writes a commented muster.toml for the cluster the
// options name; the work is config::write_starter (checked before it is written).
#include "cli/command_tree.h"
#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "config/init_file.h"
#include "util/shell_quote.h"

namespace muster::cli {

int run_init(const std::vector<std::string>& args) {
  auto app = make_app("init", "Write a commented muster.toml for the cluster the options name: the commands run in "
                              "this directory and below it take their unset options from it.\n"
                              "  muster init -w 'node[1-4]' --nproc-per-node 8\n"
                              "  muster init -H hostfile --user    # your defaults, for every directory");
  head::ConnectOptions cluster;  // only read back as the options given
  config::InitOptions options;
  options.init_app = app.get();
  options.own_keys = {"output", "user", "force"};
  options.command_line = "muster init " + shell_join(args);
  app->add_option("-o,--output", options.output, "file to write (default ./muster.toml)")
      ->type_name("FILE")
      ->group("Output");
  app->add_flag("--user", options.user, "write ~/.config/muster/config.toml (XDG_CONFIG_HOME) instead")
      ->group("Output");
  app->add_flag("--force", options.force, "replace the file if it exists")->group("Output");
  add_connect_options(*app, cluster);
  if (auto code = parse_command_line(*app, args)) return *code;
  if (auto written = config::write_starter(options, describe_commands()); !written) {
    return report_error(written.error());
  }
  return kExitOk;
}

}  // namespace muster::cli
