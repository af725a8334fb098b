#include "protocol/wire.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace muster::protocol {
namespace {

using namespace std::string_literals;

TEST(Wire, IntegersAreLittleEndian) {
  std::string out;
  WireWriter w(out);
  w.u8(0xAB);
  w.u32(0x01020304);
  w.i32(-2);
  w.u64(0x0102030405060708ull);
  w.i64(-1);
  EXPECT_EQ(out,
            "\xAB\x04\x03\x02\x01\xFE\xFF\xFF\xFF\x08\x07\x06\x05\x04\x03\x02\x01"
            "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF"s);

  WireReader r(out);
  EXPECT_EQ(r.u8("a"), 0xAB);
  EXPECT_EQ(r.u32("b"), 0x01020304u);
  EXPECT_EQ(r.i32("c"), -2);
  EXPECT_EQ(r.u64("d"), 0x0102030405060708ull);
  EXPECT_EQ(r.i64("e"), -1);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(Wire, ExtremeValuesRoundTrip) {
  std::string out;
  WireWriter w(out);
  w.i32(INT32_MIN);
  w.i32(INT32_MAX);
  w.i64(INT64_MIN);
  w.i64(INT64_MAX);
  w.u64(UINT64_MAX);
  WireReader r(out);
  EXPECT_EQ(r.i32("a"), INT32_MIN);
  EXPECT_EQ(r.i32("b"), INT32_MAX);
  EXPECT_EQ(r.i64("c"), INT64_MIN);
  EXPECT_EQ(r.i64("d"), INT64_MAX);
  EXPECT_EQ(r.u64("e"), UINT64_MAX);
  EXPECT_TRUE(r.ok());
}

TEST(Wire, StringsAndListsCarryAnyBytes) {
  std::string out;
  WireWriter w(out);
  w.str("a\0\xFF"s);
  w.str_list({"", "x\ny", "\0"s});
  EXPECT_EQ(out, "\x03\0\0\0a\0\xFF\x03\0\0\0\0\0\0\0\x03\0\0\0x\ny\x01\0\0\0\0"s);
  WireReader r(out);
  EXPECT_EQ(r.str("s"), "a\0\xFF"s);
  EXPECT_EQ(r.str_list("l"), (std::vector<std::string>{"", "x\ny", "\0"s}));
  EXPECT_TRUE(r.ok());
}

TEST(Wire, ShortReadFailsStickyAndNamesTheField) {
  const std::string bytes = "\x01\x02\x03"s;
  WireReader r(bytes);
  EXPECT_EQ(r.u32("worker"), 0u);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.failure().find("'worker'"), std::string::npos) << r.failure();
  EXPECT_EQ(r.u8("later"), 0);  // would fit, but the reader already failed
  EXPECT_EQ(r.failure().find("later"), std::string::npos);
}

TEST(Wire, StringLongerThanPayloadFails) {
  const std::string bytes = "\x05\0\0\0abcd"s;
  WireReader r(bytes);
  EXPECT_EQ(r.str("name"), "");
  EXPECT_FALSE(r.ok());
}

TEST(Wire, HostileListCountFailsWithoutAllocating) {
  for (uint32_t count : {0xFFFFFFFFu, 0x40000000u, 3u}) {
    std::string out;
    WireWriter w(out);
    w.u32(count);
    w.u32(0);  // room for two empty strings: 8 bytes
    w.u32(0);
    WireReader r(out);
    auto items = r.str_list("argv");
    EXPECT_FALSE(r.ok()) << count;
    EXPECT_TRUE(items.empty());
    EXPECT_NE(r.failure().find("elements"), std::string::npos) << r.failure();
  }
}

TEST(Wire, ListWithTruncatedElementFails) {
  std::string out;
  WireWriter w(out);
  w.u32(2);
  w.str("ok");
  w.u32(100);  // second element claims 100 bytes
  w.u32(0);
  WireReader r(out);
  EXPECT_TRUE(r.str_list("env").empty());
  EXPECT_FALSE(r.ok());
}

TEST(Wire, ExplicitFailKeepsTheFirstMessage) {
  WireReader r("");
  r.fail("first");
  r.fail("second");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.failure(), "first");
}

}  // namespace
}  // namespace muster::protocol
