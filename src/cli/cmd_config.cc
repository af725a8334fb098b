// `muster config [COMMAND [ARGS...]]`: which config files are in force and what each command takes from them;
// with a command (and its flags), every option of that command with its effective value and source. The
// command itself does not run: its app is parsed under a ParseHook and shown.
#include <fmt/core.h>

#include "cli/command_tree.h"
#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/project_config.h"
#include "cli/subcommands.h"
#include "config/apply.h"
#include "config/explain.h"
#include "posix/file.h"

namespace muster::cli {
namespace {

void print_files(const config::ConfigSet& set) {
  std::string project = "none (no muster.toml in " + set.project_searched_from + " or above)";
  std::string user = set.user_path + " (none)";
  for (const auto& file : set.files) {
    (file.role == "project" ? project : user) = file.path;
  }
  fmt::print("project file: {}\nuser file:    {}\n", project, user);
}

int show_all(const config::ConfigSet& set) {
  std::string text;
  Error error;
  bool failed = false;
  visit_command_apps([&](const Command& command, CLI::App& app, const std::vector<std::string>& path) {
    if (!command.reads_config || failed) return;
    auto applied = config::apply_config(app, path, set, posix::home_directory(), true);
    if (!applied) {
      error = applied.error();
      failed = true;
      return;
    }
    text += config::render_file_settings(app, path, *applied);
  });
  if (failed) return report_error(error);
  if (set.empty()) {
    fmt::print("\nno settings: `muster init` writes a muster.toml\n");
  } else {
    fmt::print("{}", text.empty() ? "\nno settings\n" : text);
  }
  return kExitOk;
}

int show_command(const config::ConfigSet& set, const std::vector<std::string>& words) {
  const Command* command = nullptr;
  for (const Command& candidate : all_commands()) {
    if (words.front() == candidate.name && !candidate.hidden) command = &candidate;
  }
  if (!command) return report_error(make_error(ErrorKind::usage, "config: unknown command '{}'", words.front()));
  if (!command->reads_config) {
    return report_error(make_error(ErrorKind::usage, "config: muster {} takes no settings", command->name));
  }
  ParseHook hook(
      [&](CLI::App& app, const std::vector<std::string>& args) -> std::optional<int> {
        if (auto code = parse_arguments(app, args)) return code;
        auto applied = config::apply_config(app, app_path(app), set, posix::home_directory());
        if (!applied) return report_error(applied.error());
        fmt::print("\n{}", config::render_effective_settings(app, app_path(app), *applied));
        return kExitOk;
      },
      false);
  print_files(set);
  return command->run({words.begin() + 1, words.end()});
}

}  // namespace

int run_config(const std::vector<std::string>& args) {
  auto app = make_app("config",
                      "Show the config files in force and the settings each command takes from them; with a command "
                      "and its options, every option of that command, its value and where the value comes from "
                      "(flag, file:line, default). Nothing runs.\n"
                      "  muster config\n  muster config launch --nproc-per-node 2\n"
                      "Settings live in muster.toml (this directory or the nearest parent that has one) and "
                      "~/.config/muster/config.toml; `muster init` writes a starter file.");
  app->prefix_command();
  if (auto code = parse_command_line(*app, args)) return *code;
  std::vector<std::string> words;
  if (auto code = take_command(*app, words)) return *code;
  const config::ConfigSet* set = checked_project_config();
  if (!set) return kExitUsage;
  if (words.empty()) {
    print_files(*set);
    return show_all(*set);
  }
  return show_command(*set, words);
}

}  // namespace muster::cli
