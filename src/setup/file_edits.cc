#include "setup/file_edits.h"

#include <algorithm>
#include <sstream>

#include "util/text.h"

namespace muster::setup {
namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

std::vector<std::string> words(std::string_view line) {
  std::istringstream in{std::string(line.substr(0, line.find('#')))};
  std::vector<std::string> result;
  for (std::string word; in >> word;) result.push_back(word);
  return result;
}

bool is_other_loopback(const std::string& address) {
  return address != "127.0.0.1" && address.rfind("127.", 0) == 0;
}

// The line without `name` among its host names; empty when no name is left.
std::string without_name(const std::vector<std::string>& fields, std::string_view name) {
  std::string line = fields[0];
  size_t kept = 0;
  for (size_t i = 1; i < fields.size(); ++i) {
    if (fields[i] == name) continue;
    line += " " + fields[i];
    ++kept;
  }
  return kept == 0 ? std::string() : line;
}

}  // namespace

bool has_loopback_self_mapping(std::string_view current, std::string_view own_name) {
  for (const auto& line : split_lines(current)) {
    auto fields = words(line);
    if (fields.size() < 2 || !is_other_loopback(fields[0])) continue;
    if (std::find(fields.begin() + 1, fields.end(), own_name) != fields.end()) return true;
  }
  return false;
}

std::string apply_hosts_block(std::string_view current, const std::vector<std::string>& lines, bool fix_loopback,
                              std::string_view own_name) {
  std::vector<std::string> block = {std::string(kBlockBegin)};
  block.insert(block.end(), lines.begin(), lines.end());
  block.emplace_back(kBlockEnd);
  std::vector<std::string> result;
  bool in_block = false, placed = false;
  for (const auto& line : split_lines(current)) {
    if (line == kBlockBegin) {
      in_block = true;
      continue;
    }
    if (in_block) {
      if (line == kBlockEnd) {
        in_block = false;
        result.insert(result.end(), block.begin(), block.end());
        placed = true;
      }
      continue;
    }
    auto fields = words(line);
    bool trap = fix_loopback && fields.size() >= 2 && is_other_loopback(fields[0]) &&
                std::find(fields.begin() + 1, fields.end(), own_name) != fields.end();
    if (!trap) {
      result.emplace_back(line);
    } else if (auto kept = without_name(fields, own_name); !kept.empty()) {
      result.push_back(kept);
    }
  }
  if (!placed) result.insert(result.end(), block.begin(), block.end());
  return join_lines(result);
}

std::string add_missing_lines(std::string_view current, const std::vector<std::string>& lines) {
  auto existing = split_lines(current);
  std::string result(current);
  if (!result.empty() && result.back() != '\n') result += '\n';
  for (const auto& line : lines) {
    if (line.empty() || std::find(existing.begin(), existing.end(), line) != existing.end()) continue;
    result += line + "\n";
    existing.push_back(line);
  }
  return result;
}

}  // namespace muster::setup
