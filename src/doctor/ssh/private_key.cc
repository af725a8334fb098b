#include "doctor/ssh/private_key.h"

#include <cstdint>

#include "util/hmac_sha1.h"

namespace muster::doctor {
namespace {

constexpr std::string_view kBegin = "-----BEGIN OPENSSH PRIVATE KEY-----";
constexpr std::string_view kEnd = "-----END OPENSSH PRIVATE KEY-----";
constexpr std::string_view kMagic{"openssh-key-v1\0", 15};

// Reads the SSH wire format's strings and integers from `bytes`, failing (not reading past the end) on a short one.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  std::optional<uint32_t> u32() {
    if (rest_.size() < 4) return std::nullopt;
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value = value << 8 | static_cast<unsigned char>(rest_[static_cast<size_t>(i)]);
    rest_.remove_prefix(4);
    return value;
  }
  std::optional<std::string_view> string() {
    auto length = u32();
    if (!length || *length > rest_.size()) return std::nullopt;
    std::string_view out = rest_.substr(0, *length);
    rest_.remove_prefix(*length);
    return out;
  }
  bool skip(std::string_view prefix) {
    if (rest_.substr(0, prefix.size()) != prefix) return false;
    rest_.remove_prefix(prefix.size());
    return true;
  }

 private:
  std::string_view rest_;
};

}  // namespace

std::optional<std::string> unencrypted_public_key(std::string_view file) {
  size_t begin = file.find(kBegin);
  if (begin == std::string_view::npos) return std::nullopt;
  size_t end = file.find(kEnd, begin);
  if (end == std::string_view::npos) return std::nullopt;
  std::string base64;
  for (char c : file.substr(begin + kBegin.size(), end - begin - kBegin.size())) {
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t') base64 += c;
  }
  auto bytes = base64_decode(base64);
  if (!bytes) return std::nullopt;
  Reader reader(*bytes);
  if (!reader.skip(kMagic)) return std::nullopt;
  auto cipher = reader.string();
  if (!cipher || *cipher != "none") return std::nullopt;
  if (!reader.string() || !reader.string()) return std::nullopt;  // kdfname, kdfoptions
  auto keys = reader.u32();
  if (!keys || *keys < 1) return std::nullopt;
  auto blob = reader.string();
  if (!blob) return std::nullopt;
  auto type = Reader(*blob).string();
  if (!type || type->empty()) return std::nullopt;
  for (char c : *type) {
    if (c <= ' ' || c > '~') return std::nullopt;
  }
  return std::string(*type) + " " + base64_encode(*blob);
}

}  // namespace muster::doctor
