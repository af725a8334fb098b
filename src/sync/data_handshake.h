// The handshake that opens each TCP stream of sync's direct data path (docs/agent-protocol.md section 8a). Both
// ends got the session's secret from the head over ssh; the stream is refused unless each proves it holds it,
// without sending it:
//   connector -> listener  hello      "MUSTERDP" u8 version u8 cipher u16 stream u32 session, 32 random bytes (Nc)
//   listener  -> connector challenge  "MUSTERDP", 32 random bytes (Nl), HMAC(secret, "listener" hello Nl)
//   connector -> listener  proof      HMAC(secret, "connector" hello Nl)
// The stream's key is HMAC(secret, "key" hello Nl): fresh for every stream (both nonces are), so the record
// counter nonces of data_crypto.h never repeat under a key. A replayed hello gets a new Nl, and a proof for it
// needs the secret. Pure functions over bytes (the HMAC is data_crypto.h's).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sync/data_crypto.h"
#include "util/result.h"

namespace muster::sync {

inline constexpr uint8_t kDataPathVersion = 1;
inline constexpr size_t kHelloBytes = 48;
inline constexpr size_t kChallengeBytes = 72;
inline constexpr size_t kProofBytes = 32;
inline constexpr size_t kNonceBytes = 32;

struct DataHello {
  uint8_t version = kDataPathVersion;
  DataCipher cipher = DataCipher::plain;
  uint16_t stream = 0;
  uint32_t session = 0;
  std::string nonce;  // kNonceBytes
};

std::string encode_hello(const DataHello& hello);
// A protocol error for anything that is not a hello of this version (wrong magic, size, cipher value).
Result<DataHello> decode_hello(std::string_view bytes);

// The listener's answer to `hello` (the bytes as received), with its nonce.
std::string make_challenge(std::string_view secret, std::string_view hello, std::string_view listener_nonce);
// The connector's side: checks that the listener proved the secret, and returns its own proof (kProofBytes).
Result<std::string> answer_challenge(std::string_view secret, std::string_view hello, std::string_view challenge);
// The listener's side: whether `proof` is the connector's proof of the secret for this hello and nonce.
bool check_proof(std::string_view secret, std::string_view hello, std::string_view listener_nonce,
                 std::string_view proof);
// The stream's key (32 bytes), the same on both ends.
std::string stream_key(std::string_view secret, std::string_view hello, std::string_view listener_nonce);

}  // namespace muster::sync
