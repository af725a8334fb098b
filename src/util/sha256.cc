#include "util/sha256.h"

#include <nettle/sha2.h>

namespace muster {

Sha256::Sha256() : context_(std::make_unique<sha256_ctx>()) { sha256_init(context_.get()); }
Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) {
  sha256_update(context_.get(), bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
}

std::string Sha256::hex_digest() {
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(context_.get(), sizeof digest, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (uint8_t byte : digest) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 15];
  }
  return hex;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.hex_digest();
}

}  // namespace muster
