#include "diagnosis/catalogue.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

#include "posix/file.h"
#include "util/edit_distance.h"

namespace muster::diagnosis {
namespace {

constexpr std::string_view kTableName = "failure";

const std::vector<std::string_view> kEntryKeys = {"id",  "title", "class", "fault", "match", "explain", "fix",
                                                  "doc"};
const std::vector<std::string_view> kMatchKeys = {"output", "signal", "exit_code", "note",
                                                  "fact",   "lost",   "check_module"};
// Placeholders with an argument: {fix:<doctor check>}, {finding:<doctor check>}, {note:<key>}.
const std::vector<std::string_view> kPrefixedPlaceholders = {"fix:", "finding:", "note:"};

std::string where(const std::string& origin, const toml::node& node) {
  return fmt::format("{}:{}", origin, node.source().begin.line);
}

Error entry_error(const std::string& origin, const toml::node& node, std::string_view key, const std::string& why) {
  return make_error(ErrorKind::parse, "{}: failure entry key '{}': {}", where(origin, node), key, why);
}

std::optional<std::string> unknown_key(const toml::table& table, const std::vector<std::string_view>& known,
                                       std::string& suggestion) {
  for (const auto& [key, value] : table) {
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    std::vector<std::string> names(known.begin(), known.end());
    auto guess = closest_match(key.str(), names);
    suggestion = guess ? fmt::format(" (did you mean '{}'?)", *guess) : "";
    return std::string(key.str());
  }
  return std::nullopt;
}

// Every {placeholder} in `text` is known; returns the first that is not.
std::optional<std::string> unknown_placeholder(std::string_view text) {
  for (size_t open = text.find('{'); open != std::string_view::npos; open = text.find('{', open + 1)) {
    size_t close = text.find('}', open);
    if (close == std::string_view::npos) return std::string(text.substr(open));
    std::string_view name = text.substr(open + 1, close - open - 1);
    bool digit = name.size() == 1 && name[0] >= '1' && name[0] <= '9';
    bool known = digit || std::find(known_placeholders().begin(), known_placeholders().end(), name) !=
                              known_placeholders().end();
    for (auto prefix : kPrefixedPlaceholders) known = known || (name.starts_with(prefix) && name.size() > prefix.size());
    if (!known) return "{" + std::string(name) + "}";
  }
  return std::nullopt;
}

Result<std::string> text_of(const toml::table& entry, std::string_view key, bool required,
                            const std::string& origin) {
  const toml::node* node = entry.get(key);
  if (!node) {
    if (required) return entry_error(origin, entry, key, "missing");
    return std::string();
  }
  auto value = node->value<std::string>();
  if (!value) return entry_error(origin, *node, key, "must be a string");
  if (auto bad = unknown_placeholder(*value)) {
    return entry_error(origin, *node, key, fmt::format("unknown placeholder {} (known: {})", *bad,
                                                       fmt::join(known_placeholders(), ", ")));
  }
  return *value;
}

// A string or an array of strings.
Result<std::vector<std::string>> strings_of(const toml::node& node, std::string_view key, const std::string& origin) {
  std::vector<std::string> out;
  if (auto one = node.value<std::string>()) {
    out.push_back(*one);
    return out;
  }
  const toml::array* array = node.as_array();
  if (!array) return entry_error(origin, node, key, "must be a string or an array of strings");
  for (const auto& item : *array) {
    auto text = item.value<std::string>();
    if (!text) return entry_error(origin, item, key, "must hold only strings");
    out.push_back(*text);
  }
  return out;
}

Result<std::vector<int>> ints_of(const toml::node& node, std::string_view key, const std::string& origin) {
  std::vector<int> out;
  if (auto one = node.value<int64_t>()) {
    out.push_back(static_cast<int>(*one));
    return out;
  }
  const toml::array* array = node.as_array();
  if (!array) return entry_error(origin, node, key, "must be an integer or an array of integers");
  for (const auto& item : *array) {
    auto number = item.value<int64_t>();
    if (!number) return entry_error(origin, item, key, "must hold only integers");
    out.push_back(static_cast<int>(*number));
  }
  return out;
}

bool uses_facts(const std::string& text) {
  return text.find("{fix:") != std::string::npos || text.find("{finding:") != std::string::npos;
}

Result<void> parse_match(const toml::table& match, FailureEntry& entry, const std::string& origin) {
  std::string suggestion;
  if (auto bad = unknown_key(match, kMatchKeys, suggestion)) {
    return entry_error(origin, *match.get(*bad), "match." + *bad, "unknown key" + suggestion);
  }
  for (const auto& [key, node] : match) {
    std::string name = "match." + std::string(key.str());
    if (key == "output") {
      auto patterns = strings_of(node, name, origin);
      if (!patterns) return patterns.error();
      for (const auto& pattern : *patterns) {
        try {
          entry.output.push_back({pattern, std::regex(pattern, std::regex::ECMAScript | std::regex::optimize)});
        } catch (const std::regex_error& e) {
          return entry_error(origin, node, name, fmt::format("'{}' is not a valid regular expression: {}", pattern,
                                                             e.what()));
        }
      }
    } else if (key == "signal" || key == "exit_code") {
      auto numbers = ints_of(node, name, origin);
      if (!numbers) return numbers.error();
      (key == "signal" ? entry.signals : entry.exit_codes) = *numbers;
    } else if (key == "note" || key == "fact") {
      auto names = strings_of(node, name, origin);
      if (!names) return names.error();
      (key == "note" ? entry.notes : entry.facts) = *names;
    } else if (key == "lost") {
      auto lost = node.value<bool>();
      if (!lost) return entry_error(origin, node, name, "must be true or false");
      entry.lost = *lost;
    } else {  // check_module
      auto module = node.value<std::string>();
      if (!module) return entry_error(origin, node, name, "must be a string");
      entry.check_module = *module;
    }
  }
  return {};
}

Result<FailureEntry> parse_entry(const toml::table& table, const std::string& origin) {
  std::string suggestion;
  if (auto bad = unknown_key(table, kEntryKeys, suggestion)) {
    return entry_error(origin, *table.get(*bad), *bad, "unknown key" + suggestion);
  }
  FailureEntry entry;
  entry.origin = where(origin, table);
  auto id = text_of(table, "id", true, origin);
  if (!id) return id.error();
  if (id->empty() || id->find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos) {
    return entry_error(origin, *table.get("id"), "id", "use lowercase letters, digits and '-'");
  }
  entry.id = *id;
  for (auto [key, field, required] : {std::tuple{"title", &entry.title, true}, {"explain", &entry.explain, true},
                                      {"fix", &entry.fix, true}, {"doc", &entry.doc, false}}) {
    auto text = text_of(table, key, required, origin);
    if (!text) return text.error();
    *field = *text;
  }
  std::string klass = table["class"].value_or(std::string("primary"));
  static const std::vector<std::string> kClasses = {"primary", "secondary", "timeout", "fallback"};
  auto found = std::find(kClasses.begin(), kClasses.end(), klass);
  if (found == kClasses.end()) {
    return entry_error(origin, table.get("class") ? *table.get("class") : table, "class",
                       fmt::format("'{}' is not one of primary, secondary, timeout, fallback", klass));
  }
  entry.klass = static_cast<FailureClass>(found - kClasses.begin());
  std::string fault = table["fault"].value_or(std::string("unknown"));
  static const std::vector<std::string> kFaults = {"unknown", "node", "workload"};
  auto fault_found = std::find(kFaults.begin(), kFaults.end(), fault);
  if (fault_found == kFaults.end()) {
    return entry_error(origin, table.get("fault") ? *table.get("fault") : table, "fault",
                       fmt::format("'{}' is not one of node, workload, unknown", fault));
  }
  entry.fault = static_cast<FaultClass>(fault_found - kFaults.begin());
  const toml::node* match = table.get("match");
  if (!match || !match->is_table()) return entry_error(origin, match ? *match : table, "match", "missing (a table)");
  if (auto parsed = parse_match(*match->as_table(), entry, origin); !parsed) return parsed.error();
  if (entry.output.empty() && entry.signals.empty() && entry.exit_codes.empty() && entry.notes.empty() &&
      entry.facts.empty() && !entry.lost) {
    return entry_error(origin, *match, "match", "matches nothing: give output, signal, exit_code, note, fact or lost");
  }
  entry.needs_facts = !entry.facts.empty() || uses_facts(entry.explain) || uses_facts(entry.fix);
  return entry;
}

}  // namespace

const char* fault_class_name(FaultClass fault) {
  switch (fault) {
    case FaultClass::node: return "node";
    case FaultClass::workload: return "workload";
    case FaultClass::unknown: break;
  }
  return "unknown";
}

const std::vector<std::string_view>& known_placeholders() {
  static const std::vector<std::string_view> names = {
      "rank", "node", "ranks", "nodes", "line", "how", "signal", "exit_code", "error", "missing_on", "present_on",
      "module", "python", "run_dir"};
  return names;
}

Result<std::vector<FailureEntry>> parse_catalogue(std::string_view text, const std::string& origin) {
  toml::parse_result parsed = toml::parse(text, origin);
  if (!parsed) {
    const auto& error = parsed.error();
    return make_error(ErrorKind::parse, "{}:{}:{}: {}", origin, error.source().begin.line,
                      error.source().begin.column, error.description());
  }
  const toml::table& root = parsed.table();
  std::vector<FailureEntry> entries;
  for (const auto& [key, node] : root) {
    if (key != kTableName) {
      return make_error(ErrorKind::parse, "{}: unknown top-level key '{}' (entries are [[failure]] tables)",
                        where(origin, node), key.str());
    }
  }
  const toml::array* list = root["failure"].as_array();
  if (!list) return entries;
  std::set<std::string> ids;
  for (const auto& item : *list) {
    const toml::table* table = item.as_table();
    if (!table) return make_error(ErrorKind::parse, "{}: [[failure]] must be a table", where(origin, item));
    auto entry = parse_entry(*table, origin);
    if (!entry) return entry.error();
    if (!ids.insert(entry->id).second) {
      return make_error(ErrorKind::parse, "{}: failure id '{}' is defined twice in this file", entry->origin, entry->id);
    }
    entries.push_back(std::move(*entry));
  }
  return entries;
}

std::vector<std::string> default_user_catalogues() {
  std::vector<std::string> files;
  if (const char* list = std::getenv("MUSTER_FAILURES"); list && *list) {
    std::string_view rest = list;
    while (!rest.empty()) {
      size_t colon = rest.find(':');
      if (colon != 0) files.emplace_back(rest.substr(0, colon));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  const char* config = std::getenv("XDG_CONFIG_HOME");
  std::string base = config && *config == '/' ? std::string(config) : posix::home_directory() + "/.config";
  if (base != "/.config") files.push_back(base + "/muster/failures.toml");
  return files;
}

Result<Catalogue> load_catalogue(const std::vector<std::string>& user_files) {
  Catalogue catalogue;
  std::set<std::string> ids;
  auto add = [&](std::vector<FailureEntry> entries) {
    for (auto& entry : entries) {
      if (ids.insert(entry.id).second) catalogue.entries.push_back(std::move(entry));
    }
  };
  for (const auto& file : user_files) {
    if (!posix::path_exists(file)) continue;
    auto text = posix::read_text_file(file);
    if (!text) return text.error();
    auto entries = parse_catalogue(*text, file);
    if (!entries) return entries.error();
    add(std::move(*entries));
  }
  auto builtin = parse_catalogue(builtin_catalogue_text(), "failures.toml (built in)");
  if (!builtin) return builtin.error();
  add(std::move(*builtin));
  return catalogue;
}

Result<Catalogue> load_catalogues(const std::vector<std::string>& given_files) {
  for (const auto& file : given_files) {
    if (!posix::path_exists(file)) return make_error(ErrorKind::usage, "--failures {}: no such file", file);
  }
  auto files = default_user_catalogues();
  files.insert(files.begin(), given_files.begin(), given_files.end());
  return load_catalogue(files);
}

}  // namespace muster::diagnosis
