// Does a known_hosts line hold a key for a host? OpenSSH's rules (hostfile.c, match.c), pure: the host field is
// a comma-separated list of patterns (`*` and `?` wildcards, case-insensitive, `!pattern` excludes) or one
// hashed entry `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`; the name is what ssh looks the key up by:
// HostKeyAlias, else the HostName, as `[host]:port` when the port is not 22 (known_hosts_name()).
#pragma once

#include <string>
#include <string_view>

namespace muster::doctor {

// The name ssh looks a host key up by.
std::string known_hosts_name(const std::string& host, const std::string& port, const std::string& alias);

// OpenSSH's match_pattern: `*` any run, `?` one character, case-sensitive (callers lowercase where ssh does).
bool ssh_pattern_matches(std::string_view text, std::string_view pattern);

// Whether the host field of a known_hosts line (the word after an optional @marker) matches `name`.
bool known_hosts_field_matches(std::string_view field, std::string_view name);

}  // namespace muster::doctor
