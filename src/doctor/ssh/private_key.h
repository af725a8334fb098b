// The public half of a private key file in OpenSSH's own format ("-----BEGIN OPENSSH PRIVATE KEY-----", what
// ssh-keygen writes since 7.8): its header holds the public key in the clear, so the fast ssh check knows which
// key a node offers when the `.pub` file beside an IdentityFile is missing (the how-tos copy the private half
// only), without a process or the passphrase. Pure.
//
// The format (OpenSSH's PROTOCOL.key): base64 between the armour lines of
//   "openssh-key-v1\0", string ciphername, string kdfname, string kdfoptions, uint32 N, N × string publickey, ...
// where a string is a big-endian uint32 length and that many bytes, and a public key blob starts with its type.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace muster::doctor {

// "type base64blob" of the file's first key when the key is not encrypted (ciphername "none"): ssh can use it
// in BatchMode without an agent. nullopt for another format, an encrypted key, or a malformed file.
std::optional<std::string> unencrypted_public_key(std::string_view private_key_file);

}  // namespace muster::doctor
