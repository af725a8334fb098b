// `muster init [host options] [-o FILE | --user] [--force]`: writes a commented muster.toml for the cluster the
// options name (config/starter.h), checked before it is written.
#include <filesystem>

#include <fmt/core.h>

#include "cli/command_tree.h"
#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "config/check.h"
#include "config/config_files.h"
#include "config/starter.h"
#include "config/toml_reader.h"
#include "posix/file.h"
#include "util/shell_quote.h"

namespace muster::cli {

int run_init(const std::vector<std::string>& args) {
  auto app = make_app("init", "Write a commented muster.toml for the cluster the options name: the commands run in "
                              "this directory and below it take their unset options from it.\n"
                              "  muster init -w 'node[1-4]' --nproc-per-node 8\n"
                              "  muster init -H hostfile --user    # your defaults, for every directory");
  head::ConnectOptions cluster;  // only read back as the options given
  std::string output;
  bool user = false, force = false;
  app->add_option("-o,--output", output, "file to write (default ./muster.toml)")->type_name("FILE")->group("Output");
  app->add_flag("--user", user, "write ~/.config/muster/config.toml (XDG_CONFIG_HOME) instead")->group("Output");
  app->add_flag("--force", force, "replace the file if it exists")->group("Output");
  add_connect_options(*app, cluster);
  if (auto code = parse_command_line(*app, args)) return *code;
  namespace fs = std::filesystem;
  std::string cwd = fs::current_path().string();
  if (user) output = config::default_locations().user_path;
  if (output.empty()) output = config::kProjectFileName;
  fs::path target = fs::absolute(output).lexically_normal();
  if (posix::path_exists(target.string()) && !force) {
    return report_error(make_error(ErrorKind::usage, "{} exists; --force replaces it", target.string()));
  }
  config::StarterInput input{app.get(), {"output", "user", "force"}, "muster init " + shell_join(args),
                             target.parent_path().string(), cwd};
  auto commands = describe_commands();
  std::string text = config::render_starter(input, commands);
  auto reread = config::parse_config_text(text, target.string(), "project");
  if (!reread) return report_error(reread.error());
  if (auto checked = config::check_config_file(*reread, commands); !checked) return report_error(checked.error());
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (auto written = posix::write_file_atomic(target.string(), text, 0644); !written) {
    return report_error(written.error());
  }
  fmt::print("wrote {} ({} settings); `muster config` shows what each command takes from it\n", target.string(),
             reread->settings.size());
  return kExitOk;
}

}  // namespace muster::cli
