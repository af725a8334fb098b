#include "config/starter.h"

#include <algorithm>
#include <filesystem>

#include <fmt/core.h>

#include "config/check.h"
#include "config/explain.h"
#include "config/toml_reader.h"

namespace muster::config {
namespace {

using cli_spec::CommandSpec;
using cli_spec::OptionSpec;
using cli_spec::ValueKind;

// A path given on init's command line, as the file will read it (relative to the file's directory).
std::string relocate(const std::string& value, const StarterInput& input) {
  namespace fs = std::filesystem;
  if (value.empty() || value.front() == '/' || value.front() == '~') return value;
  fs::path absolute = (fs::path(input.working_directory) / value).lexically_normal();
  fs::path relative = absolute.lexically_relative(input.output_directory);
  if (relative.empty() || relative.begin()->string() == "..") return absolute.string();
  return relative.string();
}

// The option's default as a TOML value.
std::string default_toml(const OptionSpec& option) {
  const std::string& value = option.default_value;
  if (option.kind == ValueKind::flag) return value.empty() ? "false" : value;
  if (option.repeatable) return "[]";
  bool numeric = option.kind == ValueKind::integer || option.kind == ValueKind::number;
  if (numeric && !value.empty()) return value;
  return toml_quote(value);
}

// `text` as comment lines of at most ~100 columns.
std::string comment_lines(const std::string& text) {
  std::string out, line = "#";
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find_first_of(" \n", start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    if (line.size() > 1 && line.size() + 1 + word.size() > 100) {
      out += line + "\n";
      line = "#";
    }
    if (!word.empty()) line += " " + word;
    start = end + 1;
  }
  return out + line + "\n";
}

std::string commented(const OptionSpec& option) {
  return comment_lines(option.help) + fmt::format("# {} = {}\n", option.key(), default_toml(option));
}

std::string section_of(const CommandSpec& command) {
  std::string out;
  for (const auto& part : command.path) out += (out.empty() ? "" : ".") + part;
  return out;
}

bool is_own(const StarterInput& input, const std::string& key) {
  return std::find(input.own_keys.begin(), input.own_keys.end(), key) != input.own_keys.end();
}

// The settings given to init: key = value lines, top level or by command table.
void given_settings(const StarterInput& input, const std::vector<CommandSpec>& commands, std::string& top,
                    std::vector<std::pair<std::string, std::string>>& sections) {
  for (CLI::Option* option : input.init_app->get_options()) {
    if (!option->nonpositional() || option->get_lnames().empty() || option->count() == 0) continue;
    const std::string& key = option->get_lnames().front();
    if (is_own(input, key)) continue;
    std::vector<std::string> values = option->results();
    std::string type = option->get_type_name();
    if (type.starts_with("FILE") || type.starts_with("DIR")) {
      for (auto& value : values) value = relocate(value, input);
    }
    std::string line = key + " = " + toml_value(*option, values) + "\n";
    if (same_meaning_everywhere(commands, key)) {
      top += line;
      continue;
    }
    for (const CommandSpec* command : commands_in_section(commands, {})) {
      if (command->find_option(key)) {
        sections.emplace_back(section_of(*command), line);
        break;
      }
    }
  }
}

std::string commented_section(const CommandSpec& command, const std::vector<std::string>& skip) {
  std::string out = "\n[" + section_of(command) + "]\n";
  for (const auto& option : command.options) {
    if (option.long_names.empty() || !option.configurable) continue;
    if (std::find(skip.begin(), skip.end(), option.key()) != skip.end()) continue;
    out += commented(option);
  }
  return out;
}

}  // namespace

std::string render_starter(const StarterInput& input, const std::vector<CommandSpec>& commands) {
  std::string out = fmt::format(
      "# muster.toml: settings for the muster commands run in this directory and below it.\n"
      "# Written by `{}`.\n"
      "# Keys are long option names without the dashes. A top-level key applies to every command that has the\n"
      "# option; a key under [launch], [sync], [gen.sbatch], ... to that command only. Options given on the\n"
      "# command line win over this file, and this file over ~/.config/muster/config.toml. Relative paths are\n"
      "# relative to this file's directory. `muster config` shows what each command gets and from where.\n\n",
      input.command_line);
  std::string top;
  std::vector<std::pair<std::string, std::string>> sections;
  given_settings(input, commands, top, sections);
  out += top;
  std::vector<std::string> top_keys;  // init's cluster options: set above, or offered here
  for (CLI::Option* option : input.init_app->get_options()) {
    if (!option->nonpositional() || option->get_lnames().empty()) continue;
    const std::string& key = option->get_lnames().front();
    if (is_own(input, key)) continue;
    top_keys.push_back(key);
    const CommandSpec* owner = nullptr;
    for (const CommandSpec* command : commands_in_section(commands, {})) {
      if (command->find_option(key)) owner = owner ? owner : command;
    }
    if (option->count() == 0 && owner && same_meaning_everywhere(commands, key)) out += commented(*owner->find_option(key));
  }
  for (const char* name : {"launch", "sync"}) {
    const CommandSpec* command = cli_spec::find_command(commands, {name});
    if (!command) continue;
    std::string given;
    for (const auto& [section, line] : sections) {
      if (section == name) given += line;
    }
    std::string block = commented_section(*command, top_keys);
    out += block.substr(0, block.find('\n', 1) + 1) + given + block.substr(block.find('\n', 1) + 1);
  }
  for (const auto& [section, line] : sections) {  // given keys of other commands
    if (section != "launch" && section != "sync") out += "\n[" + section + "]\n" + line;
  }
  std::string others = "# The other commands take their options the same way, in";
  size_t width = others.size();
  for (const CommandSpec* command : commands_in_section(commands, {})) {
    std::string section = section_of(*command);
    if (section == "launch" || section == "sync" || command->options.empty()) continue;
    std::string word = " [" + section + "]";
    if (width + word.size() > 100) {
      others += "\n#";
      width = 1;
    }
    others += word;
    width += word.size();
  }
  out += "\n" + others + ".\n";
  return out;
}

}  // namespace muster::config
