#include "config/check.h"

#include <algorithm>
#include <set>

#include <fmt/core.h>

#include "config/node_groups.h"
#include "util/edit_distance.h"
#include "util/text.h"

namespace muster::config {
namespace {

using cli_spec::CommandSpec;
using cli_spec::OptionSpec;

bool has_long_name(const OptionSpec& option, const std::string& key) {
  return std::find(option.long_names.begin(), option.long_names.end(), key) != option.long_names.end();
}

struct Match {
  const CommandSpec* command;
  const OptionSpec* option;
};

std::vector<Match> matches(const std::vector<const CommandSpec*>& scope, const std::string& key) {
  std::vector<Match> out;
  for (const CommandSpec* command : scope) {
    for (const auto& option : command->options) {
      if (has_long_name(option, key) && option.configurable) out.push_back({command, &option});
    }
  }
  return out;
}

std::string kind_text(const OptionSpec& option) {
  if (option.kind == cli_spec::ValueKind::flag) return "true/false";
  return option.repeatable ? "a list" : "one value";
}

Result<void> check_section(const ConfigFile& file, const std::vector<std::string>& section, const Source& source,
                           const std::vector<CommandSpec>& commands) {
  if (section.empty()) return {};
  const CommandSpec* command = cli_spec::find_command(commands, section);
  if (command && command->configurable) return {};
  std::vector<std::string> names;
  for (const CommandSpec* known : cli_spec::flatten(commands)) {
    if (known->configurable) names.push_back(join(known->path, "."));
  }
  std::string message = fmt::format("{}: [{}] is not a muster command that takes settings", source.text(),
                                    join(section, "."));
  if (auto guess = closest_match(join(section, "."), names)) {
    message += fmt::format(", did you mean [{}]?", *guess);
  }
  (void)file;
  return Error{ErrorKind::usage, message};
}

Result<void> check_setting(const Setting& setting, const std::vector<CommandSpec>& commands) {
  auto scope = commands_in_section(commands, setting.section);
  auto found = matches(scope, setting.key);
  bool only_on_command_line = std::any_of(scope.begin(), scope.end(), [&](const CommandSpec* command) {
    const OptionSpec* option = command->find_option(setting.key);
    return option && !option->configurable;
  });
  if (found.empty() && only_on_command_line) {
    return make_error(ErrorKind::usage, "{}: '{}': --{} names one run; give it on the command line, not in a file",
                      setting.source.text(), setting.display(), setting.key);
  }
  if (found.empty()) {
    std::set<std::string> keys;
    for (const CommandSpec* command : scope) {
      for (const auto& option : command->options) {
        if (option.configurable) keys.insert(option.long_names.begin(), option.long_names.end());
      }
    }
    std::string where = setting.section.empty() ? "no muster command has --" + setting.key
                                                : "muster " + join(setting.section, ".") + " has no --" + setting.key;
    std::string message = fmt::format("{}: unknown key '{}' ({})", setting.source.text(), setting.display(), where);
    if (auto guess = closest_match(setting.key, {keys.begin(), keys.end()})) {
      message += fmt::format(", did you mean '{}'?", *guess);
    }
    return Error{ErrorKind::usage, message};
  }
  for (const Match& match : found) {
    if (kind_text(*match.option) == kind_text(*found.front().option)) continue;
    return make_error(ErrorKind::usage,
                      "{}: key '{}' means different things here: for muster {} it is {} ({}), for muster {} {} ({}); "
                      "put it under [{}] or [{}]",
                      setting.source.text(), setting.display(), found.front().command->name(),
                      kind_text(*found.front().option), found.front().option->help, match.command->name(),
                      kind_text(*match.option), match.option->help, join(found.front().command->path, "."),
                      join(match.command->path, "."));
  }
  return {};
}

}  // namespace

std::vector<const CommandSpec*> commands_in_section(const std::vector<CommandSpec>& commands,
                                                    const std::vector<std::string>& section) {
  std::vector<const CommandSpec*> out;
  for (const CommandSpec* command : cli_spec::flatten(commands)) {
    if (!command->configurable || command->path.size() < section.size()) continue;
    if (std::equal(section.begin(), section.end(), command->path.begin())) out.push_back(command);
  }
  return out;
}

bool same_meaning_everywhere(const std::vector<CommandSpec>& commands, const std::string& key) {
  auto found = matches(commands_in_section(commands, {}), key);
  return std::all_of(found.begin(), found.end(),
                     [&](const Match& m) { return kind_text(*m.option) == kind_text(*found.front().option); });
}

Result<void> check_config_file(const ConfigFile& file, const std::vector<CommandSpec>& commands) {
  std::vector<std::pair<int, std::string>> errors;  // by line: toml++ hands tables over sorted by name
  std::set<std::vector<std::string>> bad_sections;
  if (auto groups = check_groups(file); !groups) return groups;  // [groups]: node groups, not settings
  for (const Table& table : file.tables) {
    if (in_groups_table(table.section)) continue;
    if (auto checked = check_section(file, table.section, table.source, commands); !checked) {
      errors.emplace_back(table.source.line, checked.error().message);
      bad_sections.insert(table.section);
    }
  }
  for (const Setting& setting : file.settings) {
    if (bad_sections.count(setting.section) || in_groups_table(setting.section)) continue;
    if (auto checked = check_setting(setting, commands); !checked) {
      errors.emplace_back(setting.source.line, checked.error().message);
    }
  }
  if (errors.empty()) return {};
  std::sort(errors.begin(), errors.end());
  std::string message;
  for (const auto& [line, text] : errors) message += (message.empty() ? "" : "\n") + text;
  return Error{ErrorKind::usage, message};
}

}  // namespace muster::config
