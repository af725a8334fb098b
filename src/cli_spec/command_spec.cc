#include "cli_spec/command_spec.h"

#include <algorithm>

#include <CLI/CLI.hpp>

namespace muster::cli_spec {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

ValueKind kind_of(const std::string& type_name, bool flag) {
  if (flag) return ValueKind::flag;
  if (type_name == "FILE") return ValueKind::file;
  if (type_name == "DIR") return ValueKind::directory;
  if (type_name == "INT" || type_name == "UINT") return ValueKind::integer;
  if (type_name == "FLOAT") return ValueKind::number;
  return ValueKind::text;
}

// CLI11's full type name is "TEXT:{a,b}" or "INT:INT in [1 - 600]": the type, then each validator's
// description. A description in braces is IsMember's set of accepted values.
void read_type(const CLI::Option& option, std::string& type_name, std::vector<std::string>& choices) {
  auto parts = split(option.get_type_name(), ':');
  type_name = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if (part.size() >= 2 && part.front() == '{' && part.back() == '}') {
      choices = split(part.substr(1, part.size() - 2), ',');
    }
  }
}

OptionSpec describe_option(CLI::Option& option) {
  OptionSpec spec;
  option.capture_default_str();
  spec.default_value = option.get_default_str();
  spec.short_names = option.get_snames();
  spec.long_names = option.get_lnames();
  spec.help = option.get_description();
  spec.group = option.get_group();
  spec.env = option.get_envname();
  read_type(option, spec.type_name, spec.choices);
  spec.kind = kind_of(spec.type_name, option.get_expected_max() == 0);
  spec.repeatable = option.get_expected_max() > 1;
  spec.configurable = option.get_configurable();
  return spec;
}

PositionalSpec describe_positional(const CLI::Option& option) {
  PositionalSpec spec;
  spec.name = option.get_name(true, false);
  spec.help = option.get_description();
  std::string type_name;
  read_type(option, type_name, spec.choices);
  spec.kind = kind_of(type_name, false);
  spec.required = option.get_required();
  spec.repeatable = option.get_expected_max() > 1;
  return spec;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (!line.empty() && line.back() == '.') line.pop_back();
  return line;
}

void flatten_into(const CommandSpec& command, std::vector<const CommandSpec*>& out) {
  out.push_back(&command);
  for (const auto& sub : command.subcommands) flatten_into(sub, out);
}

}  // namespace

std::vector<std::string> OptionSpec::spellings() const {
  std::vector<std::string> out;
  for (const auto& name : short_names) out.push_back("-" + name);
  for (const auto& name : long_names) out.push_back("--" + name);
  return out;
}

std::string CommandSpec::name() const {
  std::string out;
  for (const auto& part : path) out += (out.empty() ? "" : " ") + part;
  return out;
}

const OptionSpec* CommandSpec::find_option(const std::string& name) const {
  for (const auto& option : options) {
    const auto& longs = option.long_names;
    const auto& shorts = option.short_names;
    if (std::find(longs.begin(), longs.end(), name) != longs.end()) return &option;
    if (std::find(shorts.begin(), shorts.end(), name) != shorts.end()) return &option;
  }
  return nullptr;
}

const CommandSpec* CommandSpec::find_subcommand(const std::string& sub) const {
  for (const auto& command : subcommands) {
    if (command.path.back() == sub) return &command;
  }
  return nullptr;
}

CommandSpec describe_app(CLI::App& app, std::vector<std::string> path) {
  CommandSpec spec;
  spec.path = std::move(path);
  spec.description = app.get_description();
  spec.summary = first_line(spec.description);
  spec.footer = app.get_footer();
  spec.takes_command = app.get_prefix_command() || app.get_allow_extras();
  const CLI::Option* help = app.get_help_ptr();
  const CLI::Option* help_all = app.get_help_all_ptr();
  for (CLI::Option* option : app.get_options()) {
    if (option == help || option == help_all) continue;
    if (option->nonpositional()) {
      spec.options.push_back(describe_option(*option));
    } else {
      spec.positionals.push_back(describe_positional(*option));
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App* s) { return !s->get_name().empty(); })) {
    auto sub_path = spec.path;
    sub_path.push_back(sub->get_name());
    spec.subcommands.push_back(describe_app(*sub, std::move(sub_path)));
  }
  return spec;
}

std::vector<const CommandSpec*> flatten(const std::vector<CommandSpec>& commands) {
  std::vector<const CommandSpec*> out;
  for (const auto& command : commands) flatten_into(command, out);
  return out;
}

const CommandSpec* find_command(const std::vector<CommandSpec>& commands, const std::vector<std::string>& path) {
  const std::vector<CommandSpec>* level = &commands;
  const CommandSpec* found = nullptr;
  for (const auto& part : path) {
    auto it = std::find_if(level->begin(), level->end(), [&](const CommandSpec& c) { return c.path.back() == part; });
    if (it == level->end()) return nullptr;
    found = &*it;
    level = &it->subcommands;
  }
  return found;
}

}  // namespace muster::cli_spec
