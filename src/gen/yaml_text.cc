#include "gen/yaml_text.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <regex>

namespace muster::gen {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Characters a plain scalar may hold here: a deliberately small set (no spaces, no '#', ',', '[', '{',
// quotes), enough for host names, addresses, paths, image references and flags.
bool is_plain_char(char c) {
  return is_alnum(c) || std::string_view("-_./:@+=%~").find(c) != std::string_view::npos;
}

// Control characters need escapes, and bytes beyond ASCII go through the JSON encoder too, which replaces
// invalid UTF-8 (YAML readers refuse it) with U+FFFD.
bool needs_double_quotes(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte >= 0x7f;
  });
}

bool plain_shape(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), is_plain_char)) return false;
  char first = text.front();
  if (!is_alnum(first) && first != '_' && first != '/' && first != '-' && first != '.') return false;
  if (text.starts_with("---") || text.starts_with("...") || text == "-") return false;
  return text.back() != ':';
}

std::string single_quoted(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

std::string double_quoted(std::string_view text) {
  // JSON strings are YAML double-quoted scalars.
  return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

template <typename Json>
std::string scalar(const Json& value) {
  if (value.is_string()) return yaml_scalar(value.template get_ref<const std::string&>());
  if (value.is_null()) return "null";
  if (value.is_array()) return "[]";
  if (value.is_object()) return "{}";
  return value.dump();  // numbers and booleans read the same in JSON and YAML
}

template <typename Json>
bool is_block(const Json& value) {
  return (value.is_object() || value.is_array()) && !value.empty();
}

std::string pad(int indent) {
  return std::string(static_cast<size_t>(indent), ' ');
}

template <typename Json>
std::string block(const Json& value, int indent);

// A list item at `indent`: `- scalar`, or a nested block whose first line takes the `- ` in place of its
// indentation.
template <typename Json>
std::string list_item(const Json& item, int indent) {
  if (!is_block(item)) return pad(indent) + "- " + scalar(item) + "\n";
  std::string nested = block(item, indent + 2);
  return pad(indent) + "- " + nested.substr(static_cast<size_t>(indent) + 2);
}

template <typename Json>
std::string block(const Json& value, int indent) {
  std::string text;
  if (value.is_array()) {
    for (const auto& item : value) text += list_item(item, indent);
    return text;
  }
  for (const auto& [key, member] : value.items()) {
    text += pad(indent) + yaml_scalar(key) + ":";
    text += is_block(member) ? "\n" + block(member, indent + 2) : " " + scalar(member) + "\n";
  }
  return text;
}

}  // namespace

bool yaml_resolves_to_non_string(std::string_view text) {
  static const std::array<std::string_view, 27> words = {
      "y",  "Y",    "yes",  "Yes",  "YES",   "n",     "N",     "no", "No",
      "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On",
      "ON", "off",  "Off",  "OFF",  "null",  "Null",  "NULL",  "~",  ""};
  if (std::find(words.begin(), words.end(), text) != words.end()) return true;
  static const std::regex number(
      "[-+]?(0b[01_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)"  // ints, YAML 1.1 and 1.2
      "|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\\.[0-9_]*)?"           // 1.1 sexagesimal
      "|[-+]?([0-9][0-9_]*)?\\.[0-9_]*([eE][-+]?[0-9]+)?"        // 1.1 floats
      "|[-+]?[0-9]+([eE][-+]?[0-9]+)"                            // 1.2 floats without a dot
      "|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)"                  // infinity, not a number
      "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?"                // timestamps
      "|<<|=");                                                  // merge key, value key
  return std::regex_match(text.begin(), text.end(), number);
}

std::string yaml_scalar(std::string_view text) {
  if (needs_double_quotes(text)) return double_quoted(text);
  if (plain_shape(text) && !yaml_resolves_to_non_string(text)) return std::string(text);
  return single_quoted(text);
}

std::string to_yaml(const nlohmann::json& document) {
  assert(document.is_object());
  return block(document, 0);
}

std::string to_yaml(const nlohmann::ordered_json& document) {
  assert(document.is_object());
  return block(document, 0);
}

}  // namespace muster::gen
