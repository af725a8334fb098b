// What muster accepts as a host name, a login name, and a destination (`[user@]host`), shared by every
// parser in this folder so a hostfile and a hostlist agree. Host names are DNS-style labels or IPv4
// addresses: letters, digits, '-', '.', '_', not starting with '-' or '.', at most 253
// characters; user names use the same characters, at most 256. Pure checks; no resolving.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace muster::cluster {

// Why a name was refused, and the offset of the offending character within the checked text.
struct NameProblem {
  size_t offset = 0;
  std::string message;
};

bool is_host_name_char(char c);
std::optional<NameProblem> check_host_name(std::string_view name);
std::optional<NameProblem> check_user_name(std::string_view user);
// `[user@]host`; offsets are relative to the whole destination.
std::optional<NameProblem> check_destination(std::string_view destination);

}  // namespace muster::cluster
