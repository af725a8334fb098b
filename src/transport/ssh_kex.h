// Which key exchange muster asks ssh for (`--ssh-kex`, config key `ssh-kex`, MUSTER_SSH_KEX). Pure.
//
// OpenSSH 9 offers a post-quantum hybrid first (sntrup761x25519, mlkem768x25519 from 9.9). Its key generation
// costs the client ~7x the CPU of curve25519 (72 ms against 10 ms per connection on the testbed), and a cold
// start of N agents is N handshakes on the head's cores, so muster asks by default for OpenSSH's classic
// methods ("fast": curve25519 first). Every method in that list is one OpenSSH enables by default itself, so
// nothing weaker than ssh's own choice is ever allowed; what is given up is the hybrid's protection of recorded
// traffic against a future quantum computer. `default` leaves the choice to ssh (and the user's ssh_config);
// any other value is passed as `-o KexAlgorithms=VALUE`. A user's `--ssh-option KexAlgorithms=...` wins.
//
// When a node's sshd accepts none of muster's methods (a server set to post-quantum only), or the local ssh
// does not know one (older than OpenSSH 7.4), the connection fails before anything runs; kex_refused() tells
// that failure from others so the start is retried once with ssh's own choice.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::transport {

// OpenSSH's classic default key exchanges (all known since 7.4), curve25519 first.
inline constexpr const char* kFastKex =
    "curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521,"
    "diffie-hellman-group-exchange-sha256,diffie-hellman-group16-sha512,diffie-hellman-group18-sha512,"
    "diffie-hellman-group14-sha256";

inline constexpr const char* kKexFast = "fast";
inline constexpr const char* kKexDefault = "default";
inline constexpr const char* kKexEnv = "MUSTER_SSH_KEX";

// The -o KexAlgorithms value for a choice: "fast" → kFastKex, "default" → nullopt (no option), a list → itself.
std::optional<std::string> kex_algorithms(std::string_view choice);

// A usage error naming the flag for anything but "fast", "default" or a comma-separated list of algorithm names
// (letters, digits and -._@+ only: the value ends up in an ssh option).
Result<void> check_kex_choice(std::string_view choice);

// Whether ssh's stderr says the key exchange failed for want of a common method (or an unknown method name),
// rather than the node being unreachable or refusing the user.
bool kex_refused(std::string_view ssh_stderr);

// Whether one of the user's own -o options already sets KexAlgorithms (ssh keeps the first value it gets).
bool sets_kex(const std::vector<std::string>& extra_options);

}  // namespace muster::transport
