#include "transport/ssh_kex.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace muster::transport {
namespace {

bool iequal_prefix(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

}  // namespace

std::optional<std::string> kex_algorithms(std::string_view choice) {
  if (choice.empty() || choice == kKexFast) return std::string(kFastKex);
  if (choice == kKexDefault) return std::nullopt;
  return std::string(choice);
}

Result<void> check_kex_choice(std::string_view choice) {
  if (choice.empty() || choice == kKexFast || choice == kKexDefault) return {};
  bool ok = std::all_of(choice.begin(), choice.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '@' || c == '+' ||
           c == ',';
  });
  if (ok && choice.front() != ',' && choice.back() != ',' && choice.find(",,") == std::string_view::npos) return {};
  return make_error(ErrorKind::usage,
                    "'{}' is not 'fast' (muster's choice), 'default' (ssh's own) or a comma-separated list of key "
                    "exchange algorithms as `ssh -Q kex` prints them (from the command line, a config file or {})",
                    choice, kKexEnv);
}

bool kex_refused(std::string_view ssh_stderr) {
  return ssh_stderr.find("no matching key exchange method") != std::string_view::npos ||
         ssh_stderr.find("Bad SSH2 KexAlgorithms") != std::string_view::npos ||
         ssh_stderr.find("Unsupported KEX algorithm") != std::string_view::npos;
}

bool sets_kex(const std::vector<std::string>& extra_options) {
  return std::any_of(extra_options.begin(), extra_options.end(), [](const std::string& option) {
    std::string_view text = option;
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    if (!iequal_prefix(text, "kexalgorithms")) return false;
    text.remove_prefix(std::string_view("kexalgorithms").size());
    return !text.empty() && (text.front() == '=' || std::isspace(static_cast<unsigned char>(text.front())));
  });
}

}  // namespace muster::transport
