// The cryptography of sync's direct data path (docs/agent-protocol.md section 8a): the record AEAD and the
// handshake's MAC, from OpenSSL's libcrypto (linked statically, like every library of the binary the head pushes to
// nodes). AES-128-GCM where the CPU has AES instructions (several GB/s per core), ChaCha20-Poly1305 elsewhere;
// `plain` (the user declared the network trusted) seals nothing and adds no tag.
//
// A RecordSealer/RecordOpener owns one direction of one connection: its key is that connection's alone (derived in
// the handshake from both sides' fresh nonces, data_handshake.h), and its nonce is a counter of the records sealed
// with it, so no nonce is ever used twice under a key. A record's sequence number (its place among the records of
// all of a hop's streams) is its associated data: authenticated, not secret.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "util/result.h"

namespace muster::sync {

enum class DataCipher : uint8_t { plain = 0, aes128_gcm = 1, chacha20_poly1305 = 2 };
inline constexpr uint8_t kMaxDataCipher = 2;
inline constexpr size_t kTagBytes = 16;
inline constexpr size_t kSecretBytes = 32;

const char* cipher_name(DataCipher cipher);  // "AES-128-GCM", "ChaCha20-Poly1305", "plaintext"
// The AEAD for a CPU with or without AES instructions.
DataCipher preferred_cipher(bool cpu_has_aes);
size_t tag_bytes(DataCipher cipher);  // kTagBytes, 0 for plain

// `n` bytes from the kernel's random source (OpenSSL's RAND_bytes, seeded by getrandom).
std::string random_bytes(size_t n);
// HMAC-SHA256 of the concatenated `parts` under `key`: 32 bytes.
std::string hmac_sha256(std::string_view key, std::initializer_list<std::string_view> parts);
// Constant-time comparison of two strings of the same length (false when the lengths differ).
bool same_bytes(std::string_view a, std::string_view b);

class RecordSealer {
 public:
  // `key`: at least 32 bytes (AES-128 takes the first 16).
  static Result<RecordSealer> create(DataCipher cipher, std::string_view key);
  RecordSealer(RecordSealer&&) noexcept;
  RecordSealer& operator=(RecordSealer&&) noexcept;
  ~RecordSealer();

  DataCipher cipher() const { return cipher_; }
  // One record: begin() with its sequence number, seal() its bytes in any number of pieces (`out` gets as many
  // bytes as `plain` has; it may be `plain` itself), finish() writes the tag (tag_bytes()) to `tag`.
  void begin(uint64_t sequence);
  void seal(std::string_view plain, char* out);
  void finish(char* tag);

 private:
  RecordSealer() = default;
  struct State;
  DataCipher cipher_ = DataCipher::plain;
  std::unique_ptr<State> state_;
  uint64_t counter_ = 0;
};

class RecordOpener {
 public:
  static Result<RecordOpener> create(DataCipher cipher, std::string_view key);
  RecordOpener(RecordOpener&&) noexcept;
  RecordOpener& operator=(RecordOpener&&) noexcept;
  ~RecordOpener();

  // Decrypts `bytes` in place and checks `tag`: false when the record is not exactly what the sealer sealed as
  // record `sequence`, the next one of this connection (tampered, reordered, replayed, truncated).
  bool open(uint64_t sequence, char* bytes, size_t size, std::string_view tag);

 private:
  RecordOpener() = default;
  struct State;
  DataCipher cipher_ = DataCipher::plain;
  std::unique_ptr<State> state_;
  uint64_t counter_ = 0;
};

}  // namespace muster::sync
