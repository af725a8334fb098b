// The public half of an OpenSSH-format private key, read from its clear header (doctor/ssh/private_key.h), so the
// fast ssh check knows the key a node offers when the IdentityFile has no .pub beside it.
#include "doctor/ssh/private_key.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "util/hmac_sha1.h"

namespace muster::doctor {
namespace {

std::string u32(uint32_t value) {
  std::string out;
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value >> shift) & 0xff);
  return out;
}
std::string str(const std::string& bytes) { return u32(static_cast<uint32_t>(bytes.size())) + bytes; }

const std::string kBlob = str("ssh-ed25519") + str(std::string(32, '\x5a'));

// A key file as ssh-keygen writes it: armour, base64 wrapped at 70 columns.
std::string key_file(const std::string& cipher, const std::string& blob = kBlob) {
  std::string body = std::string("openssh-key-v1", 14) + '\0' + str(cipher) + str(cipher == "none" ? "none" : "bcrypt") +
                     str(cipher == "none" ? "" : "salt+rounds") + u32(1) + str(blob) + str("private part");
  std::string base64 = base64_encode(body), wrapped;
  for (size_t i = 0; i < base64.size(); i += 70) wrapped += base64.substr(i, 70) + "\n";
  return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + wrapped + "-----END OPENSSH PRIVATE KEY-----\n";
}

TEST(PrivateKey, AnUnencryptedKeyGivesItsPublicHalf) {
  auto key = unencrypted_public_key(key_file("none"));
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(*key, "ssh-ed25519 " + base64_encode(kBlob));
}

TEST(PrivateKey, AnEncryptedKeyIsNotOneBatchModeCanUse) {
  EXPECT_FALSE(unencrypted_public_key(key_file("aes256-ctr")).has_value());
}

TEST(PrivateKey, OtherFormatsAndDamagedFilesGiveNothing) {
  EXPECT_FALSE(unencrypted_public_key("-----BEGIN RSA PRIVATE KEY-----\nMIIEow==\n-----END RSA PRIVATE KEY-----\n"));
  EXPECT_FALSE(unencrypted_public_key(""));
  std::string file = key_file("none");
  EXPECT_FALSE(unencrypted_public_key(file.substr(0, file.size() / 2)));  // no END line
  EXPECT_FALSE(unencrypted_public_key(key_file("none", u32(1000) + "short")));  // a length past the end
  EXPECT_FALSE(unencrypted_public_key(key_file("none", str(std::string("bad\ntype")))));
  std::string not_base64 = "-----BEGIN OPENSSH PRIVATE KEY-----\n@@@@\n-----END OPENSSH PRIVATE KEY-----\n";
  EXPECT_FALSE(unencrypted_public_key(not_base64));
}

}  // namespace
}  // namespace muster::doctor
