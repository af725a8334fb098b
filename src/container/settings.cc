#include "container/settings.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "container/shm_size.h"
#include "util/text.h"

namespace muster::container {
namespace {

std::string limit_text(int64_t value) { return value < 0 ? "-1" : std::to_string(value); }

std::optional<int64_t> parse_limit(std::string_view text) {
  if (text == "-1" || text == "unlimited") return -1;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::string Ulimit::flag_value() const { return fmt::format("{}={}:{}", name, limit_text(soft), limit_text(hard)); }

std::vector<Ulimit> default_ulimits() { return {{"memlock", -1, -1}, {"stack", kStackBytes, kStackBytes}}; }

Result<Ulimit> parse_ulimit(std::string_view text) {
  auto bad = [&] {
    return make_error(ErrorKind::usage,
                      "--container-ulimit '{}' is not NAME=LIMIT or NAME=SOFT:HARD (e.g. memlock=-1, "
                      "nofile=1024:4096; -1 or unlimited for no limit; or 'none' for the runtime's defaults)",
                      one_line(text));
  };
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return bad();
  std::string name(text.substr(0, eq));
  if (!std::all_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; })) return bad();
  std::string_view value = text.substr(eq + 1);
  size_t colon = value.find(':');
  auto soft = parse_limit(value.substr(0, colon));
  auto hard = colon == std::string_view::npos ? soft : parse_limit(value.substr(colon + 1));
  if (!soft || !hard) return bad();
  if (*hard >= 0 && (*soft < 0 || *soft > *hard)) {
    return make_error(ErrorKind::usage, "--container-ulimit '{}': the soft limit is above the hard one",
                      one_line(text));
  }
  return Ulimit{name, *soft, *hard};
}

Result<std::vector<Ulimit>> ulimits_with(const std::vector<std::string>& overrides) {
  if (overrides.size() == 1 && overrides[0] == "none") return std::vector<Ulimit>{};
  std::vector<Ulimit> limits = default_ulimits();
  for (const auto& text : overrides) {
    if (text == "none") {
      return make_error(ErrorKind::usage, "--container-ulimit none stands alone (it drops every limit muster sets)");
    }
    auto limit = parse_ulimit(text);
    if (!limit) return limit.error();
    auto same = std::find_if(limits.begin(), limits.end(), [&](const Ulimit& u) { return u.name == limit->name; });
    if (same != limits.end()) *same = *limit;
    else limits.push_back(*limit);
  }
  return limits;
}

Result<std::string> job_shm_size(std::string_view text) {
  if (text.empty()) return std::string();
  auto size = parse_shm_size(text);
  if (!size) {
    return make_error(ErrorKind::usage, "--container-shm-size '{}' is not a size such as 16g or 512m", one_line(text));
  }
  return size->compose();
}

JobSettings job_settings(const std::string& shm_size, const std::vector<Ulimit>& ulimits) {
  return {std::string(kNetwork), std::string(shm_size.empty() ? kIpc : kPrivateIpc), shm_size, ulimits};
}

}  // namespace muster::container
