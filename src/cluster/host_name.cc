#include "cluster/host_name.h"

#include <fmt/format.h>

namespace muster::cluster {
namespace {

constexpr size_t kMaxHostNameLength = 253;
constexpr size_t kMaxUserNameLength = 256;

bool is_ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string printable(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte < 0x20 || byte >= 0x7f) return fmt::format("\\x{:02x}", byte);
  return std::string(1, c);
}

// Shared by host and user names: every character allowed, and a sensible first character.
std::optional<NameProblem> check_name(std::string_view name, std::string_view what,
                                      std::string_view bad_starts) {
  if (name.empty()) return NameProblem{0, fmt::format("expected a {}, found nothing", what)};
  for (size_t i = 0; i < name.size(); ++i) {
    if (!is_host_name_char(name[i])) {
      return NameProblem{i, fmt::format("invalid character '{}' in {} '{}'", printable(name[i]), what, name)};
    }
  }
  if (bad_starts.find(name.front()) != std::string_view::npos) {
    return NameProblem{0, fmt::format("{} '{}' must not start with '{}'", what, name, name.front())};
  }
  return std::nullopt;
}

}  // namespace

bool is_host_name_char(char c) {
  return is_ascii_alnum(c) || c == '-' || c == '.' || c == '_';
}

std::optional<NameProblem> check_host_name(std::string_view name) {
  if (auto problem = check_name(name, "host name", "-.")) return problem;
  if (name.size() > kMaxHostNameLength) {
    return NameProblem{
        0, fmt::format("host name is {} characters long, more than {}", name.size(), kMaxHostNameLength)};
  }
  return std::nullopt;
}

std::optional<NameProblem> check_user_name(std::string_view user) {
  if (auto problem = check_name(user, "user name", "-")) return problem;
  if (user.size() > kMaxUserNameLength) {
    return NameProblem{
        0, fmt::format("user name is {} characters long, more than {}", user.size(), kMaxUserNameLength)};
  }
  return std::nullopt;
}

std::optional<NameProblem> check_destination(std::string_view destination) {
  auto at = destination.find('@');
  if (at == std::string_view::npos) return check_host_name(destination);
  if (auto problem = check_user_name(destination.substr(0, at))) return problem;
  auto problem = check_host_name(destination.substr(at + 1));
  if (problem) problem->offset += at + 1;
  return problem;
}

}  // namespace muster::cluster
