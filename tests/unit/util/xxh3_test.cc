#include "util/xxh3.h"

#include <string>

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(Xxh3Hasher, KnownDigests) {
  Xxh3Hasher empty;
  EXPECT_EQ(empty.digest(), 0x2D06800538D394C2ull);  // XXH3_64bits of no bytes (xxhash's reference value)
  Xxh3Hasher a, b;
  a.update("muster");
  b.update("musteR");
  EXPECT_NE(a.digest(), b.digest());
}

TEST(Xxh3Hasher, PiecesHashLikeTheWhole) {
  std::string data;
  for (int i = 0; i < 100'000; ++i) data += static_cast<char>(i * 7);
  Xxh3Hasher whole, pieces;
  whole.update(data);
  for (size_t at = 0; at < data.size(); at += 333) pieces.update(std::string_view(data).substr(at, 333));
  EXPECT_EQ(whole.digest(), pieces.digest());
  uint64_t once = whole.digest();
  EXPECT_EQ(whole.digest(), once);  // digest() does not end the hash
  whole.update("more");
  EXPECT_NE(whole.digest(), once);
}

}  // namespace
}  // namespace muster
