// HMAC-SHA1 and base64, computed with Debian's nettle (like util/sha256.h): what OpenSSH's hashed known_hosts
// entries are made of (`|1|base64(salt)|base64(HMAC-SHA1(salt, host))`), for doctor/ssh/known_hosts.h. Not for
// anything that needs a strong hash.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace muster {

// The 20 raw bytes of HMAC-SHA1(key, message).
std::string hmac_sha1(std::string_view key, std::string_view message);

// Standard base64 (with padding); nullopt for text that is not base64.
std::optional<std::string> base64_decode(std::string_view text);
std::string base64_encode(std::string_view bytes);

}  // namespace muster
