#include "config/explain.h"

#include <fmt/core.h>

#include "config/toml_reader.h"

namespace muster::config {
namespace {

std::string base_type(const CLI::Option& option) {
  std::string type = option.get_type_name();
  return type.substr(0, type.find(':'));
}

bool bare(const CLI::Option& option) {
  std::string type = base_type(option);
  return option.get_expected_max() == 0 || type == "INT" || type == "UINT" || type == "FLOAT";
}

std::vector<CLI::Option*> settable_options(CLI::App& app) {
  std::vector<CLI::Option*> out;
  for (CLI::Option* option : app.get_options()) {
    if (option == app.get_help_ptr() || !option->nonpositional() || option->get_lnames().empty()) continue;
    out.push_back(option);
  }
  return out;
}

std::string default_value(CLI::Option& option) {
  option.capture_default_str();
  std::string text = option.get_default_str();
  if (option.get_expected_max() == 0) return text.empty() ? "false" : text;
  if (option.get_expected_max() > 1 && text.starts_with('[')) return text;
  return bare(option) && !text.empty() ? text : toml_quote(text);
}

std::string hidden_sources(const Applied& entry) {
  if (entry.shadowed.empty()) return "";
  std::string out;
  for (const Setting* setting : entry.shadowed) out += (out.empty() ? "" : ", ") + setting->source.text();
  return " (hides " + out + ")";
}

void render_app(CLI::App& app, const std::vector<std::string>& path, const AppliedSettings& applied,
                bool files_only, std::string& out) {
  std::string name, section;
  for (const auto& part : path) {
    name += (name.empty() ? "" : " ") + part;
    section += (section.empty() ? "" : ".") + part;
  }
  std::vector<std::string> lines;
  for (CLI::Option* option : settable_options(app)) {
    const std::string& key = option->get_lnames().front();
    auto entry = applied.find(applied_key(path, key));
    bool from_file = entry != applied.end();
    if (files_only && !from_file) continue;
    std::string value = option->count() > 0 ? toml_value(*option, option->results()) : default_value(*option);
    std::string source = from_file ? entry->second.setting->source.text() + hidden_sources(entry->second)
                                   : option->count() > 0 ? "flag" : "default";
    if (files_only) {
      lines.push_back(fmt::format("{} = {}  # {}", key, value, source));
    } else {
      lines.push_back(fmt::format("  {:<22} = {:<30} {}", key, value, source));
    }
  }
  if (!lines.empty()) {
    out += files_only ? "\n[" + section + "]\n" : "muster " + name + ":\n";
    for (const auto& line : lines) out += line + "\n";
  }
}

void render_tree(CLI::App& app, const std::vector<std::string>& path, const AppliedSettings& applied,
                 bool files_only, std::string& out) {
  render_app(app, path, applied, files_only, out);
  auto subs = files_only ? app.get_subcommands([](CLI::App* s) { return !s->get_name().empty(); })
                         : app.get_subcommands();
  for (CLI::App* sub : subs) {
    auto sub_path = path;
    sub_path.push_back(sub->get_name());
    render_tree(*sub, sub_path, applied, files_only, out);
  }
}

}  // namespace

std::string toml_value(const CLI::Option& option, const std::vector<std::string>& values) {
  auto one = [&](const std::string& value) { return bare(option) ? value : toml_quote(value); };
  if (option.get_expected_max() <= 1 && values.size() == 1) return one(values.front());
  std::string out;
  for (const auto& value : values) out += (out.empty() ? "" : ", ") + one(value);
  return "[" + out + "]";
}

std::string render_effective_settings(CLI::App& app, const std::vector<std::string>& path,
                                      const AppliedSettings& applied) {
  std::string out;
  render_tree(app, path, applied, false, out);
  return out;
}

std::string render_file_settings(CLI::App& app, const std::vector<std::string>& path, const AppliedSettings& applied) {
  std::string out;
  render_tree(app, path, applied, true, out);
  return out;
}

}  // namespace muster::config
