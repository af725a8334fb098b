#include "cli/parse.h"

#include <algorithm>

#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/project_config.h"
#include "util/edit_distance.h"

namespace muster::cli {
namespace {

std::vector<std::string> long_option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

}  // namespace

int report_unknown_option(const CLI::App& app, const std::string& option) {
  std::string flag = option.substr(0, option.find('='));
  fmt::print(stderr, "{}: unknown option '{}'", app.get_name(), flag);
  if (flag.rfind("--", 0) == 0) {
    if (auto guess = closest_match(flag, long_option_names(app))) fmt::print(stderr, ", did you mean '{}'?", *guess);
  }
  fmt::print(stderr, "\nrun '{} --help' for the options\n", app.get_name());
  return kExitUsage;
}

std::optional<int> take_command(const CLI::App& app, std::vector<std::string>& command) {
  // prefix_command() stops at the first argument it does not know: a command, or a mistyped option. A command
  // that itself starts with '-' needs `--` in front of it.
  command = app.remaining();
  if (!command.empty() && command.front() == "--") {
    command.erase(command.begin());
  } else if (!command.empty() && command.front().starts_with('-')) {
    return report_unknown_option(app, command.front());
  }
  return std::nullopt;
}

std::unique_ptr<CLI::App> make_app(const std::string& name, const std::string& description) {
  auto app = std::make_unique<CLI::App>(description, "muster " + name);
  app->footer("Exit codes: 0 ok, 1 failure, 2 usage error, 3 not built yet; see README.md.");
  return app;
}

namespace {
ParseHook* current_hook = nullptr;
}  // namespace

ParseHook::ParseHook(Visit visit, bool describing)
    : visit_(std::move(visit)), describing_(describing), outer_(current_hook) {
  current_hook = this;
}

ParseHook::~ParseHook() { current_hook = outer_; }

bool describing_commands() { return current_hook != nullptr && current_hook->describing_; }

std::optional<int> parse_command_line(CLI::App& app, const std::vector<std::string>& args) {
  if (current_hook) return current_hook->visit_(app, args);
  if (auto code = parse_arguments(app, args)) return code;
  return apply_project_config(app);
}

std::optional<int> parse_arguments(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    auto extras = app.remaining();
    auto option = std::find_if(extras.begin(), extras.end(), [](const std::string& a) { return a.starts_with('-'); });
    if (option != extras.end()) return report_unknown_option(app, *option);
    app.exit(e);
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  return std::nullopt;
}

}  // namespace muster::cli
