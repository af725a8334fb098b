#include "sync/data_handshake.h"

namespace muster::sync {
namespace {

constexpr std::string_view kMagic = "MUSTERDP";

void put_be(std::string& out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t get_be(std::string_view in, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<unsigned char>(in[at + static_cast<size_t>(i)]);
  return value;
}

}  // namespace

std::string encode_hello(const DataHello& hello) {
  std::string out(kMagic);
  out.push_back(static_cast<char>(hello.version));
  out.push_back(static_cast<char>(hello.cipher));
  put_be(out, hello.stream, 2);
  put_be(out, hello.session, 4);
  out.append(hello.nonce);
  out.resize(kHelloBytes, '\0');
  return out;
}

Result<DataHello> decode_hello(std::string_view bytes) {
  if (bytes.size() != kHelloBytes || bytes.substr(0, kMagic.size()) != kMagic) {
    return make_error(ErrorKind::protocol, "not a muster data path connection");
  }
  DataHello hello;
  hello.version = static_cast<uint8_t>(bytes[8]);
  if (hello.version != kDataPathVersion) {
    return make_error(ErrorKind::protocol, "data path version {} (this muster speaks {})", hello.version,
                      kDataPathVersion);
  }
  auto cipher = static_cast<uint8_t>(bytes[9]);
  if (cipher > kMaxDataCipher) return make_error(ErrorKind::protocol, "unknown data path cipher {}", cipher);
  hello.cipher = static_cast<DataCipher>(cipher);
  hello.stream = static_cast<uint16_t>(get_be(bytes, 10, 2));
  hello.session = static_cast<uint32_t>(get_be(bytes, 12, 4));
  hello.nonce = std::string(bytes.substr(16, kNonceBytes));
  return hello;
}

std::string make_challenge(std::string_view secret, std::string_view hello, std::string_view listener_nonce) {
  std::string out(kMagic);
  out.append(listener_nonce);
  out.append(hmac_sha256(secret, {"listener", hello, listener_nonce}));
  return out;
}

Result<std::string> answer_challenge(std::string_view secret, std::string_view hello, std::string_view challenge) {
  if (challenge.size() != kChallengeBytes || challenge.substr(0, kMagic.size()) != kMagic) {
    return make_error(ErrorKind::protocol, "the peer is not a muster data path listener");
  }
  std::string_view nonce = challenge.substr(kMagic.size(), kNonceBytes);
  std::string_view proof = challenge.substr(kMagic.size() + kNonceBytes);
  if (!same_bytes(proof, hmac_sha256(secret, {"listener", hello, nonce}))) {
    return make_error(ErrorKind::protocol, "the listener did not prove the session's secret");
  }
  return hmac_sha256(secret, {"connector", hello, nonce});
}

bool check_proof(std::string_view secret, std::string_view hello, std::string_view listener_nonce,
                 std::string_view proof) {
  return same_bytes(proof, hmac_sha256(secret, {"connector", hello, listener_nonce}));
}

std::string stream_key(std::string_view secret, std::string_view hello, std::string_view listener_nonce) {
  return hmac_sha256(secret, {"key", hello, listener_nonce});
}

}  // namespace muster::sync
