#include "cli/command_tree.h"

#include <algorithm>

#include "cli/exit_codes.h"
#include "cli/parse.h"

namespace muster::cli {

std::vector<std::string> app_path(const CLI::App& app) {
  std::vector<std::string> path;
  const std::string& name = app.get_name();  // make_app names it "muster <command>"
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = std::min(name.find(' ', start), name.size());
    if (end > start) path.push_back(name.substr(start, end - start));
    start = end + 1;
  }
  if (!path.empty() && path.front() == "muster") path.erase(path.begin());
  return path;
}

std::vector<std::string> visit_command_apps(const AppVisitor& visit) {
  std::vector<std::string> missing;
  for (const Command& command : all_commands()) {
    if (command.hidden) continue;
    bool visited = false;
    ParseHook hook(
        [&](CLI::App& app, const std::vector<std::string>&) -> std::optional<int> {
          auto path = app_path(app);
          if (path.empty() || path.front() != command.name) path = {command.name};
          visit(command, app, path);
          visited = true;
          return kExitOk;
        },
        true);
    command.run({"--help"});
    if (!visited) missing.emplace_back(command.name);
  }
  return missing;
}

std::vector<cli_spec::CommandSpec> describe_commands(std::vector<std::string>* missing) {
  std::vector<cli_spec::CommandSpec> specs;
  for (const Command& command : all_commands()) {
    if (command.hidden) continue;
    cli_spec::CommandSpec top;
    top.path = {command.name};
    top.summary = command.summary;
    top.configurable = command.reads_config;
    specs.push_back(std::move(top));
  }
  auto not_visited = visit_command_apps([&](const Command& command, CLI::App& app, const std::vector<std::string>& path) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const auto& s) { return s.path.front() == command.name; });
    auto spec = cli_spec::describe_app(app, path);
    std::vector<cli_spec::CommandSpec*> all{&spec};
    for (size_t i = 0; i < all.size(); ++i) {
      all[i]->configurable = command.reads_config;
      for (auto& sub : all[i]->subcommands) all.push_back(&sub);
    }
    if (path.size() == 1) {
      spec.summary = it->summary;
      *it = std::move(spec);
    } else {  // one of the command's own apps (gen's kinds)
      if (it->description.empty()) it->description = it->summary;
      it->subcommands.push_back(std::move(spec));
    }
  });
  if (missing) *missing = std::move(not_visited);
  return specs;
}

}  // namespace muster::cli
