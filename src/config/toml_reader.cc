#include "config/toml_reader.h"

// toml++ compiled into this one file, header-only and without exceptions (Debian's CMake target would link
// its shared library; the binary pushed to nodes links only glibc).
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>

#include <fmt/core.h>

namespace muster::config {
namespace {

int line_of(const toml::source_region& region) { return static_cast<int>(region.begin.line); }

Error value_error(const std::string& path, const toml::source_region& where, const std::string& key,
                  std::string_view what) {
  return make_error(ErrorKind::usage, "{}:{}: {}: {}", path, line_of(where), key, what);
}

// One scalar as the command line would spell it.
Result<std::string> scalar_text(const toml::node& node, ValueType& type, const std::string& path,
                                const std::string& key) {
  if (auto text = node.as_string()) {
    type = ValueType::string;
    return text->get();
  }
  if (auto number = node.as_integer()) {
    type = ValueType::integer;
    return std::to_string(number->get());
  }
  if (auto number = node.as_floating_point()) {
    type = ValueType::number;
    return fmt::format("{}", number->get());
  }
  if (auto flag = node.as_boolean()) {
    type = ValueType::boolean;
    return std::string(flag->get() ? "true" : "false");
  }
  return value_error(path, node.source(), key,
                     "a setting is a string, a number, true/false or a list of those (dates and tables are not)");
}

Result<void> read_table(const toml::table& table, std::vector<std::string> section, ConfigFile& file) {
  for (auto&& [name, node] : table) {
    std::string key(name.str());
    int line = name.source().begin.line ? line_of(name.source()) : line_of(node.source());
    if (auto sub = node.as_table()) {
      auto sub_section = section;
      sub_section.push_back(key);
      file.tables.push_back(Table{sub_section, Source{file.path, line}});
      if (auto read = read_table(*sub, sub_section, file); !read) return read;
      continue;
    }
    Setting setting{section, key, {}, ValueType::string, false, Source{file.path, line}};
    std::string shown = section.empty() ? key : "[" + setting.section_name() + "] " + key;
    if (auto list = node.as_array()) {
      setting.is_list = true;
      for (const toml::node& element : *list) {
        if (element.is_array() || element.is_table()) {
          return value_error(file.path, element.source(), shown, "a list holds strings, numbers or true/false only");
        }
        ValueType type = ValueType::string;
        auto text = scalar_text(element, type, file.path, shown);
        if (!text) return text.error();
        setting.type = type;
        setting.values.push_back(*text);
      }
    } else {
      auto text = scalar_text(node, setting.type, file.path, shown);
      if (!text) return text.error();
      setting.values.push_back(*text);
    }
    file.settings.push_back(std::move(setting));
  }
  return {};
}

// Line `number` (1-based) of `text`, without its newline; empty past the end.
std::string_view line_at(std::string_view text, size_t number) {
  for (size_t line = 1; line < number; ++line) {
    size_t newline = text.find('\n');
    if (newline == std::string_view::npos) return {};
    text.remove_prefix(newline + 1);
  }
  return text.substr(0, text.find('\n'));
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

// The key a line assigns (`key = ...`, `"quoted key" = ...`, `a.b = ...`), or empty when it assigns none.
std::string assigned_key(std::string_view line) {
  size_t equals = line.find('=');
  if (equals == std::string_view::npos) return "";
  std::string_view key = trimmed(line.substr(0, equals));
  if (key.empty() || key.front() == '[' || key.front() == '#') return "";
  bool plain = std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '"' ||
           c == '\'' || c == ' ';
  });
  return plain ? std::string(key) : "";
}

// The table a line of `text` is in: the last `[table]` header above it ("" for the top level).
std::string table_above(std::string_view text, size_t number) {
  std::string table;
  for (size_t line = 1; line < number; ++line) {
    std::string_view header = trimmed(line_at(text, line));
    if (header.starts_with("[[") || !header.starts_with('[')) continue;
    size_t close = header.find(']');
    if (close != std::string_view::npos) table = std::string(trimmed(header.substr(1, close - 1)));
  }
  return table;
}

// "[launch] nproc-per-node: " when the malformed line assigns a key, so the error names it like the others.
std::string key_of_line(std::string_view text, size_t number) {
  std::string key = assigned_key(line_at(text, number));
  if (key.empty()) return "";
  std::string table = table_above(text, number);
  return (table.empty() ? key : "[" + table + "] " + key) + ": ";
}

}  // namespace

Result<ConfigFile> parse_config_text(std::string_view text, const std::string& path, const std::string& role) {
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    const toml::parse_error& error = parsed.error();
    size_t line = error.source().begin.line;
    return make_error(ErrorKind::usage, "{}:{}:{}: {}{}", path, line, error.source().begin.column,
                      key_of_line(text, line), error.description());
  }
  ConfigFile file;
  file.path = path;
  file.role = role;
  if (auto read = read_table(parsed.table(), {}, file); !read) return read.error();
  return file;
}

std::string toml_quote(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace muster::config
