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
#include "config/trust.h"
#include "posix/file.h"

namespace muster::cli {
namespace {

void print_files(const config::ConfigSet& set) {
  std::string project = "none (no muster.toml in " + set.project_searched_from + " or above)";
  std::string user = set.user_path + " (none)";
  for (const auto& file : set.files) {
    std::string keys = config::keys_needing_allow(file);
    std::string trust = file.role != "project" || keys.empty() ? ""
                        : file.allowed ? " (allowed)"
                                       : " (not allowed, so commands refuse its " + keys + ": `muster config allow`)";
    (file.role == "project" ? project : user) = file.path + trust;
  }
  fmt::print("project file: {}\nuser file:    {}\n", project, user);
}

// `muster config allow|deny [FILE]`: FILE, or the project file in force.
int allow_or_deny(const std::vector<std::string>& words) {
  if (words.size() > 2) return report_error(make_error(ErrorKind::usage, "config {}: one file at most", words[0]));
  std::string path;
  if (words.size() == 2) {
    path = posix::absolute_path(words[1]);
  } else if (const config::ConfigSet* set = checked_project_config()) {
    for (const auto& file : set->files) {
      if (file.role == "project") path = file.path;
    }
    if (path.empty()) {
      return report_error(make_error(ErrorKind::usage, "config {}: no muster.toml in {} or above", words[0],
                                     set->project_searched_from));
    }
  } else {
    return kExitUsage;
  }
  auto done = words[0] == "allow" ? config::allow_project_file(path) : config::deny_project_file(path);
  if (!done) return report_error(done.error());
  fmt::print("{}\n", *done);
  return kExitOk;
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
                      "~/.config/muster/config.toml; `muster init` writes a starter file. A muster.toml whose "
                      "settings run commands or send the job elsewhere (hosts, ssh-option, env, ...) is used once "
                      "allowed: `muster config allow [FILE]` records its content (a change asks again), `muster "
                      "config deny [FILE]` drops that.");
  app->prefix_command();
  if (auto code = parse_command_line(*app, args)) return *code;
  std::vector<std::string> words;
  if (auto code = take_command(*app, words)) return *code;
  if (!words.empty() && (words[0] == "allow" || words[0] == "deny")) return allow_or_deny(words);
  const config::ConfigSet* set = checked_project_config();
  if (!set) return kExitUsage;
  if (words.empty()) {
    print_files(*set);
    return show_all(*set);
  }
  return show_command(*set, words);
}

}  // namespace muster::cli
