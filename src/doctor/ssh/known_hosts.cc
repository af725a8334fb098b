#include "doctor/ssh/known_hosts.h"

#include <cctype>

#include "util/hmac_sha1.h"

namespace muster::doctor {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string known_hosts_name(const std::string& host, const std::string& port, const std::string& alias) {
  if (!alias.empty()) return lower(alias);
  if (port.empty() || port == "22") return lower(host);
  return "[" + lower(host) + "]:" + port;
}

bool ssh_pattern_matches(std::string_view text, std::string_view pattern) {
  size_t t = 0, p = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++t;
      ++p;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool known_hosts_field_matches(std::string_view field, std::string_view name) {
  std::string host = lower(name);
  if (field.rfind("|1|", 0) == 0) {
    size_t bar = field.find('|', 3);
    if (bar == std::string_view::npos) return false;
    auto salt = base64_decode(field.substr(3, bar - 3));
    auto hash = base64_decode(field.substr(bar + 1));
    return salt && hash && hmac_sha1(*salt, host) == *hash;
  }
  bool matched = false;
  size_t start = 0;
  while (start <= field.size()) {
    size_t comma = field.find(',', start);
    std::string_view pattern = field.substr(start, comma == std::string_view::npos ? field.size() - start : comma - start);
    bool negated = !pattern.empty() && pattern[0] == '!';
    if (negated) pattern.remove_prefix(1);
    if (!pattern.empty() && ssh_pattern_matches(host, lower(pattern))) {
      if (negated) return false;
      matched = true;
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return matched;
}

}  // namespace muster::doctor
