#include "sync/data_crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace muster::sync {
namespace {

constexpr size_t kNonceBytes = 12;

const EVP_CIPHER* evp_cipher(DataCipher cipher) {
  return cipher == DataCipher::aes128_gcm ? EVP_aes_128_gcm() : EVP_chacha20_poly1305();
}

// 4 zero bytes and the record counter, big-endian: unique per key (a key is one connection's one direction).
void counter_nonce(uint64_t counter, unsigned char* nonce) {
  std::memset(nonce, 0, kNonceBytes);
  for (int i = 0; i < 8; ++i) nonce[kNonceBytes - 1 - i] = static_cast<unsigned char>(counter >> (8 * i));
}

void sequence_bytes(uint64_t sequence, unsigned char* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(sequence >> (56 - 8 * i));
}

struct CtxDeleter {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};

Result<std::unique_ptr<EVP_CIPHER_CTX, CtxDeleter>> make_context(DataCipher cipher, std::string_view key,
                                                                 bool encrypt) {
  if (key.size() < kSecretBytes) return make_error(ErrorKind::internal, "data path key too short");
  std::unique_ptr<EVP_CIPHER_CTX, CtxDeleter> ctx(EVP_CIPHER_CTX_new());
  const auto* bytes = reinterpret_cast<const unsigned char*>(key.data());
  if (!ctx || EVP_CipherInit_ex(ctx.get(), evp_cipher(cipher), nullptr, nullptr, nullptr, encrypt ? 1 : 0) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, kNonceBytes, nullptr) != 1 ||
      EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, bytes, nullptr, encrypt ? 1 : 0) != 1) {
    return make_error(ErrorKind::internal, "cannot set up {}", cipher_name(cipher));
  }
  return ctx;
}

}  // namespace

const char* cipher_name(DataCipher cipher) {
  switch (cipher) {
    case DataCipher::aes128_gcm: return "AES-128-GCM";
    case DataCipher::chacha20_poly1305: return "ChaCha20-Poly1305";
    case DataCipher::plain: break;
  }
  return "plaintext";
}

DataCipher preferred_cipher(bool cpu_has_aes) {
  return cpu_has_aes ? DataCipher::aes128_gcm : DataCipher::chacha20_poly1305;
}

size_t tag_bytes(DataCipher cipher) { return cipher == DataCipher::plain ? 0 : kTagBytes; }

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) std::abort();
  return out;
}

std::string hmac_sha256(std::string_view key, std::initializer_list<std::string_view> parts) {
  std::string message;
  for (auto part : parts) message.append(part);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), mac, &length);
  return std::string(reinterpret_cast<const char*>(mac), length);
}

bool same_bytes(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

struct RecordSealer::State {
  std::unique_ptr<EVP_CIPHER_CTX, CtxDeleter> ctx;
};

Result<RecordSealer> RecordSealer::create(DataCipher cipher, std::string_view key) {
  RecordSealer sealer;
  sealer.cipher_ = cipher;
  if (cipher == DataCipher::plain) return sealer;
  auto ctx = make_context(cipher, key, true);
  if (!ctx) return ctx.error();
  sealer.state_ = std::make_unique<State>();
  sealer.state_->ctx = std::move(*ctx);
  return sealer;
}

RecordSealer::RecordSealer(RecordSealer&&) noexcept = default;
RecordSealer& RecordSealer::operator=(RecordSealer&&) noexcept = default;
RecordSealer::~RecordSealer() = default;

void RecordSealer::begin(uint64_t sequence) {
  if (!state_) return;
  unsigned char nonce[kNonceBytes], aad[8];
  counter_nonce(counter_++, nonce);
  sequence_bytes(sequence, aad);
  int n = 0;
  EVP_EncryptInit_ex(state_->ctx.get(), nullptr, nullptr, nullptr, nonce);
  EVP_EncryptUpdate(state_->ctx.get(), nullptr, &n, aad, sizeof(aad));
}

void RecordSealer::seal(std::string_view plain, char* out) {
  if (!state_) {
    if (out != plain.data()) std::memmove(out, plain.data(), plain.size());
    return;
  }
  // EVP_EncryptUpdate takes an int: pieces above 1 GiB go in parts (frames are at most 16 MiB; this is cheap).
  while (!plain.empty()) {
    int piece = static_cast<int>(std::min<size_t>(plain.size(), 1u << 30));
    int n = 0;
    EVP_EncryptUpdate(state_->ctx.get(), reinterpret_cast<unsigned char*>(out), &n,
                      reinterpret_cast<const unsigned char*>(plain.data()), piece);
    plain.remove_prefix(static_cast<size_t>(piece));
    out += piece;
  }
}

void RecordSealer::finish(char* tag) {
  if (!state_) return;
  int n = 0;
  unsigned char unused[16];
  EVP_EncryptFinal_ex(state_->ctx.get(), unused, &n);  // a stream mode: nothing more comes out
  EVP_CIPHER_CTX_ctrl(state_->ctx.get(), EVP_CTRL_AEAD_GET_TAG, kTagBytes, tag);
}

struct RecordOpener::State {
  std::unique_ptr<EVP_CIPHER_CTX, CtxDeleter> ctx;
};

Result<RecordOpener> RecordOpener::create(DataCipher cipher, std::string_view key) {
  RecordOpener opener;
  opener.cipher_ = cipher;
  if (cipher == DataCipher::plain) return opener;
  auto ctx = make_context(cipher, key, false);
  if (!ctx) return ctx.error();
  opener.state_ = std::make_unique<State>();
  opener.state_->ctx = std::move(*ctx);
  return opener;
}

RecordOpener::RecordOpener(RecordOpener&&) noexcept = default;
RecordOpener& RecordOpener::operator=(RecordOpener&&) noexcept = default;
RecordOpener::~RecordOpener() = default;

bool RecordOpener::open(uint64_t sequence, char* bytes, size_t size, std::string_view tag) {
  if (!state_) return tag.empty();
  if (tag.size() != kTagBytes) return false;
  unsigned char nonce[kNonceBytes], aad[8], expected[kTagBytes];
  counter_nonce(counter_++, nonce);
  sequence_bytes(sequence, aad);
  std::memcpy(expected, tag.data(), kTagBytes);
  auto* ctx = state_->ctx.get();
  int n = 0;
  if (EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce) != 1 ||
      EVP_DecryptUpdate(ctx, nullptr, &n, aad, sizeof(aad)) != 1) {
    return false;
  }
  auto* data = reinterpret_cast<unsigned char*>(bytes);
  while (size > 0) {
    int piece = static_cast<int>(std::min<size_t>(size, 1u << 30));
    if (EVP_DecryptUpdate(ctx, data, &n, data, piece) != 1) return false;
    data += piece;
    size -= static_cast<size_t>(piece);
  }
  unsigned char unused[16];
  return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, kTagBytes, expected) == 1 &&
         EVP_DecryptFinal_ex(ctx, unused, &n) == 1;
}

}  // namespace muster::sync
