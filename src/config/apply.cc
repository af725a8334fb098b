#include "config/apply.h"

#include <algorithm>

#include <fmt/core.h>

namespace muster::config {
namespace {

bool names_option(const CLI::Option& option, const std::string& key) {
  const auto& names = option.get_lnames();
  return std::find(names.begin(), names.end(), key) != names.end();
}

// The settings for `option`, highest precedence first: by file, then from the most specific table.
std::vector<const Setting*> settings_for(const CLI::Option& option, const std::vector<std::string>& path,
                                         const ConfigSet& config) {
  std::vector<const Setting*> found;
  for (const ConfigFile& file : config.files) {
    for (size_t depth = path.size() + 1; depth-- > 0;) {
      std::vector<std::string> section(path.begin(), path.begin() + static_cast<long>(depth));
      for (const Setting& setting : file.settings) {
        if (setting.section == section && names_option(option, setting.key)) found.push_back(&setting);
      }
    }
  }
  return found;
}

bool is_path_option(const CLI::Option& option) {
  std::string type = option.get_type_name();
  type = type.substr(0, type.find(':'));
  return type == "FILE" || type == "DIR";
}

std::string resolve_path(const std::string& value, const ConfigFile& file, const std::string& home) {
  if (value.empty() || value.front() == '/') return value;
  if (value == "~" || value.starts_with("~/")) return home + value.substr(1);
  return file.directory() + "/" + value;
}

const ConfigFile& file_of(const Setting& setting, const ConfigSet& config) {
  for (const ConfigFile& file : config.files) {
    if (!file.settings.empty() && &setting >= &file.settings.front() && &setting <= &file.settings.back()) return file;
  }
  return config.files.front();
}

Error setting_error(const Setting& setting, std::string_view why) {
  return make_error(ErrorKind::usage, "{}: {}: {}", setting.source.text(), setting.display(), why);
}

Result<void> apply_setting(CLI::Option& option, const Setting& setting, const ConfigSet& config,
                           const std::string& home) {
  std::vector<std::string> values = setting.values;
  if (option.get_expected_max() == 0) {  // a flag
    if (values.size() != 1 || setting.is_list || setting.type != ValueType::boolean) {
      return setting_error(setting, "a flag takes true or false");
    }
    values = {option.get_flag_value(setting.key, values.front())};
  } else if (option.get_expected_max() == 1 && values.size() != 1) {
    return setting_error(setting, fmt::format("takes one value, not a list of {}", values.size()));
  }
  if (is_path_option(option)) {
    for (auto& value : values) value = resolve_path(value, file_of(setting, config), home);
  }
  try {
    option.add_result(values);
    option.run_callback();
  } catch (const CLI::Error& error) {
    return setting_error(setting, error.what());
  }
  return {};
}

bool excluded_by_command_line(const CLI::Option& option) {
  const auto& excludes = option.get_excludes();
  return std::any_of(excludes.begin(), excludes.end(), [](const CLI::Option* other) { return other->count() > 0; });
}

Result<void> apply_to(CLI::App& app, const std::vector<std::string>& path, const ConfigSet& config,
                      const std::string& home, bool every_subcommand, AppliedSettings& applied) {
  for (CLI::Option* option : app.get_options()) {
    if (option == app.get_help_ptr() || !option->nonpositional() || option->get_lnames().empty()) continue;
    if (option->count() > 0 || excluded_by_command_line(*option) || !option->get_configurable()) continue;
    auto found = settings_for(*option, path, config);
    if (found.empty()) continue;
    if (auto done = apply_setting(*option, *found.front(), config, home); !done) return done;
    Applied& entry = applied[applied_key(path, option->get_lnames().front())];
    entry.setting = found.front();
    entry.shadowed.assign(found.begin() + 1, found.end());
  }
  auto subs = every_subcommand ? app.get_subcommands([](CLI::App* s) { return !s->get_name().empty(); })
                              : app.get_subcommands();
  for (CLI::App* sub : subs) {
    auto sub_path = path;
    sub_path.push_back(sub->get_name());
    if (auto done = apply_to(*sub, sub_path, config, home, every_subcommand, applied); !done) return done;
  }
  return {};
}

}  // namespace

std::string applied_key(const std::vector<std::string>& path, const std::string& option_key) {
  std::string out;
  for (const auto& part : path) out += part + " ";
  return out + option_key;
}

Result<AppliedSettings> apply_config(CLI::App& app, const std::vector<std::string>& path, const ConfigSet& config,
                                     const std::string& home, bool every_subcommand) {
  AppliedSettings applied;
  if (config.empty()) return applied;
  if (auto done = apply_to(app, path, config, home, every_subcommand, applied); !done) return done.error();
  return applied;
}

}  // namespace muster::config
