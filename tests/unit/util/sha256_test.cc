#include "util/sha256.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

// FIPS 180-4 examples (and what `sha256sum` prints for them).
TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, IncrementalEqualsWhole) {
  std::string data(1 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 + (i >> 9));
  Sha256 hash;
  for (size_t at = 0; at < data.size(); at += 4097) hash.update(std::string_view(data).substr(at, 4097));
  EXPECT_EQ(hash.hex_digest(), sha256_hex(data));
}

}  // namespace
}  // namespace muster
