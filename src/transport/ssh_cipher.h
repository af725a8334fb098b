// Which ciphers muster asks ssh for (`--ssh-cipher`, config key `ssh-cipher`, MUSTER_SSH_CIPHER). Pure.
//
// OpenSSH puts chacha20-poly1305 first. On a CPU with AES instructions (x86's AES-NI, ARMv8's crypto extension)
// AES-GCM runs several times faster (here: 4.9 GB/s against 3.7 GB/s per core in `openssl speed`, more with
// VAES), and every byte muster moves over ssh (sync's control, logs, sync data when the direct data path is off)
// is encrypted once per hop, so `auto` (the default) asks for OpenSSH's own default ciphers with AES-GCM first
// when this machine's CPU has AES instructions, and leaves ssh's order alone when it has not (chacha20 is then
// the fast one). Nothing weaker than ssh's own choice is ever allowed: the list holds exactly OpenSSH's defaults.
// `default` leaves the choice to ssh (and the user's ssh_config); any other value is passed as
// `-o Ciphers=VALUE`. A user's `--ssh-option Ciphers=...` wins (ssh keeps the first value).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace muster::transport {

// OpenSSH's default ciphers (all there since 6.5), AES-GCM first.
inline constexpr const char* kAesFirstCiphers =
    "aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr";

inline constexpr const char* kCipherAuto = "auto";
inline constexpr const char* kCipherDefault = "default";
inline constexpr const char* kCipherEnv = "MUSTER_SSH_CIPHER";

// The -o Ciphers value for a choice: "auto" → kAesFirstCiphers when `cpu_has_aes`, else nullopt (ssh's order);
// "default" → nullopt; a list → itself.
std::optional<std::string> cipher_algorithms(std::string_view choice, bool cpu_has_aes);

// A usage error naming the environment variable for anything but "auto", "default" or a comma-separated list of
// cipher names (letters, digits and -._@+ only: the value ends up in an ssh option).
Result<void> check_cipher_choice(std::string_view choice);

}  // namespace muster::transport
