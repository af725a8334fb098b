#include "doctor/node/os_release.h"

#include "util/text.h"

namespace muster::doctor {
namespace {

std::string unquote(std::string_view value) {
  if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
    return std::string(value.substr(1, value.size() - 2));
  }
  if (value.size() < 2 || value.front() != '"' || value.back() != '"') return std::string(value);
  value = value.substr(1, value.size() - 2);
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size()) ++i;
    out += value[i];
  }
  return out;
}

}  // namespace

OsRelease parse_os_release(std::string_view text) {
  OsRelease release;
  for (auto raw : split_lines(text)) {
    std::string_view line = trim(raw);
    size_t equals = line.find('=');
    if (line.empty() || line.front() == '#' || equals == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, equals));
    std::string value = unquote(trim(line.substr(equals + 1)));
    if (key == "ID") release.id = value;
    else if (key == "VERSION_ID") release.version_id = value;
    else if (key == "PRETTY_NAME") release.pretty_name = value;
  }
  return release;
}

}  // namespace muster::doctor
