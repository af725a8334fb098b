#include "sync/exclude.h"

#include <charconv>
#include <optional>

#include "sync/glob.h"

namespace muster::sync {
namespace {

// Drops trailing spaces that are not escaped with '\' (an escaped one stays, with its '\').
std::string_view strip_trailing_spaces(std::string_view text) {
  size_t keep = 0;  // length up to the last character that is not an unescaped space
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      ++i;
      keep = i + 1;
    } else if (text[i] != ' ') {
      keep = i + 1;
    }
  }
  return text.substr(0, keep);
}

std::string normalize_base(std::string_view base) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  while (!base.empty() && base.front() == '/') base.remove_prefix(1);
  return std::string(base);
}

// The part of `path` below `base`, or nullopt when `path` is not strictly inside it.
std::optional<std::string_view> below(std::string_view path, std::string_view base) {
  if (base.empty()) return path;
  if (path.size() <= base.size() + 1 || path.compare(0, base.size(), base) != 0 || path[base.size()] != '/') {
    return std::nullopt;
  }
  return path.substr(base.size() + 1);
}

bool rule_matches(const ExcludeRules::Rule& rule, std::string_view path, bool is_dir) {
  if (rule.dir_only && !is_dir) return false;
  auto relative = below(path, rule.base);
  if (!relative) return false;
  if (rule.anchored) return glob_match(rule.pattern, *relative);
  size_t slash = relative->rfind('/');
  std::string_view name = slash == std::string_view::npos ? *relative : relative->substr(slash + 1);
  return glob_match(rule.pattern, name);
}

// Serialized form of a rule: "<n|-><d|-><a|-> <base length> <base><pattern>" (lossless for any bytes).
std::string serialize_rule(const ExcludeRules::Rule& rule) {
  std::string out;
  out += rule.negate ? 'n' : '-';
  out += rule.dir_only ? 'd' : '-';
  out += rule.anchored ? 'a' : '-';
  out += ' ';
  out += std::to_string(rule.base.size());
  out += ' ';
  out += rule.base;
  out += rule.pattern;
  return out;
}

Result<ExcludeRules::Rule> deserialize_rule(std::string_view line) {
  auto bad = [&] { return make_error(ErrorKind::protocol, "malformed exclude rule '{}'", line); };
  if (line.size() < 6 || line[3] != ' ') return bad();
  ExcludeRules::Rule rule;
  const char flags[3] = {'n', 'd', 'a'};
  bool* fields[3] = {&rule.negate, &rule.dir_only, &rule.anchored};
  for (int i = 0; i < 3; ++i) {
    if (line[i] != flags[i] && line[i] != '-') return bad();
    *fields[i] = line[i] == flags[i];
  }
  size_t length = 0;
  const char* begin = line.data() + 4;
  const char* end = line.data() + line.size();
  auto [stop, ec] = std::from_chars(begin, end, length);
  if (ec != std::errc() || stop == begin || stop == end || *stop != ' ') return bad();
  if (*begin == '0' && stop - begin > 1) return bad();  // one spelling per rule: no leading zeros
  size_t base_at = static_cast<size_t>(stop - line.data()) + 1;
  if (length > line.size() - base_at) return bad();
  rule.base = std::string(line.substr(base_at, length));
  rule.pattern = std::string(line.substr(base_at + length));
  if (rule.pattern.empty()) return bad();
  if (auto syntax = glob_syntax_error(rule.pattern)) {
    return make_error(ErrorKind::protocol, "exclude rule '{}': {}", rule.pattern, *syntax);
  }
  return rule;
}

}  // namespace

Result<void> ExcludeRules::add(std::string_view pattern, std::string_view base, std::string_view source) {
  return add_rule(pattern, base, source, false);
}

Result<void> ExcludeRules::add_rule(std::string_view pattern, std::string_view base, std::string_view source,
                                    bool in_tree) {
  if (!pattern.empty() && pattern.back() == '\r') pattern.remove_suffix(1);  // ignore files written on Windows
  std::string_view text = strip_trailing_spaces(pattern);
  if (text.empty() || text.front() == '#') return {};
  Rule rule;
  rule.base = normalize_base(base);
  if (text.front() == '!') {
    rule.negate = true;
    text.remove_prefix(1);
  }
  if (!text.empty() && text.back() == '/') {
    rule.dir_only = true;
    text.remove_suffix(1);
  }
  if (!text.empty() && text.front() == '/') {
    rule.anchored = true;
    text.remove_prefix(1);
  }
  if (text.find('/') != std::string_view::npos) rule.anchored = true;
  if (text.empty()) return {};  // "/", "!", "!/": match nothing, as in git
  if (auto syntax = glob_syntax_error(text)) {
    return make_error(ErrorKind::usage, "{}: bad exclude pattern '{}': {}", source, pattern, *syntax);
  }
  rule.pattern = std::string(text);
  if (in_tree) {
    rules_.insert(rules_.begin() + static_cast<std::ptrdiff_t>(in_tree_), std::move(rule));
    ++in_tree_;
  } else {
    rules_.push_back(std::move(rule));
  }
  return {};
}

Result<void> ExcludeRules::add_file_text(std::string_view text, std::string_view base, std::string_view source,
                                         bool in_tree) {
  size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    std::string where = std::string(source) + ":" + std::to_string(line_number);
    if (auto added = add_rule(line, base, where, in_tree); !added) return added.error();
  }
  return {};
}

bool ExcludeRules::excluded(std::string_view path, bool is_dir) const {
  for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule) {
    if (rule_matches(*rule, path, is_dir)) return !rule->negate;
  }
  return false;
}

std::vector<std::string> ExcludeRules::serialize() const {
  std::vector<std::string> lines;
  lines.reserve(rules_.size());
  for (const auto& rule : rules_) lines.push_back(serialize_rule(rule));
  return lines;
}

Result<ExcludeRules> ExcludeRules::deserialize(const std::vector<std::string>& lines) {
  ExcludeRules rules;
  for (const auto& line : lines) {
    auto rule = deserialize_rule(line);
    if (!rule) return rule.error();
    rules.rules_.push_back(std::move(*rule));
  }
  return rules;
}

}  // namespace muster::sync
