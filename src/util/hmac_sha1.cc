#include "util/hmac_sha1.h"

#include <nettle/base64.h>
#include <nettle/hmac.h>

namespace muster {

std::string hmac_sha1(std::string_view key, std::string_view message) {
  hmac_sha1_ctx context;
  hmac_sha1_set_key(&context, key.size(), reinterpret_cast<const uint8_t*>(key.data()));
  hmac_sha1_update(&context, message.size(), reinterpret_cast<const uint8_t*>(message.data()));
  uint8_t digest[SHA1_DIGEST_SIZE];
  hmac_sha1_digest(&context, sizeof digest, digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

std::optional<std::string> base64_decode(std::string_view text) {
  base64_decode_ctx context;
  base64_decode_init(&context);
  std::string out(BASE64_DECODE_LENGTH(text.size()), '\0');
  size_t length = out.size();
  if (!base64_decode_update(&context, &length, reinterpret_cast<uint8_t*>(out.data()), text.size(), text.data()) ||
      !base64_decode_final(&context)) {
    return std::nullopt;
  }
  out.resize(length);
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out(BASE64_ENCODE_RAW_LENGTH(bytes.size()), '\0');
  base64_encode_raw(out.data(), bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
  return out;
}

}  // namespace muster
