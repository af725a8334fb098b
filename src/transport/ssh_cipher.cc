#include "transport/ssh_cipher.h"

#include <algorithm>
#include <cctype>

namespace muster::transport {

std::optional<std::string> cipher_algorithms(std::string_view choice, bool cpu_has_aes) {
  if (choice.empty() || choice == kCipherAuto) {
    if (cpu_has_aes) return std::string(kAesFirstCiphers);
    return std::nullopt;
  }
  if (choice == kCipherDefault) return std::nullopt;
  return std::string(choice);
}

Result<void> check_cipher_choice(std::string_view choice) {
  if (choice.empty() || choice == kCipherAuto || choice == kCipherDefault) return {};
  bool ok = std::all_of(choice.begin(), choice.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '@' || c == '+' ||
           c == ',';
  });
  if (ok && choice.front() != ',' && choice.back() != ',' && choice.find(",,") == std::string_view::npos) return {};
  return make_error(ErrorKind::usage,
                    "'{}' is not 'auto' (AES-GCM first where the CPU has AES instructions), 'default' (ssh's own) "
                    "or a comma-separated list of ciphers as `ssh -Q cipher` prints them (from the command line, a "
                    "config file or {})",
                    choice, kCipherEnv);
}

}  // namespace muster::transport
