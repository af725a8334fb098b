#include "container/settings.h"

#include <gtest/gtest.h>

namespace muster::container {
namespace {

TEST(Ulimits, DefaultsAreTheHowTosMemlockAndStack) {
  auto limits = default_ulimits();
  ASSERT_EQ(limits.size(), 2u);
  EXPECT_EQ(limits[0].flag_value(), "memlock=-1:-1");
  EXPECT_EQ(limits[1].flag_value(), "stack=67108864:67108864");
}

TEST(Ulimits, ParsesOneValueOrSoftAndHard) {
  EXPECT_EQ(parse_ulimit("memlock=-1")->flag_value(), "memlock=-1:-1");
  EXPECT_EQ(parse_ulimit("memlock=unlimited")->flag_value(), "memlock=-1:-1");
  EXPECT_EQ(parse_ulimit("nofile=1024:4096")->flag_value(), "nofile=1024:4096");
  EXPECT_EQ(parse_ulimit("memlock=8388608")->flag_value(), "memlock=8388608:8388608");
  EXPECT_EQ(parse_ulimit("core=0:-1")->flag_value(), "core=0:-1");
}

TEST(Ulimits, RefusesWhatIsNotALimit) {
  for (const char* text : {"", "memlock", "=1", "memlock=", "memlock=x", "memlock=1:x", "MEMLOCK=1", "nofile=-2",
                           "nofile=4096:1024", "nofile=-1:1024"}) {
    auto limit = parse_ulimit(text);
    ASSERT_FALSE(limit) << text;
    EXPECT_EQ(limit.error().kind, ErrorKind::usage) << text;
  }
}

TEST(Ulimits, OverridesReplaceTheDefaultOfTheSameName) {
  auto limits = ulimits_with({"memlock=8388608", "nofile=1024:4096"});
  ASSERT_TRUE(limits);
  ASSERT_EQ(limits->size(), 3u);
  EXPECT_EQ((*limits)[0].flag_value(), "memlock=8388608:8388608");
  EXPECT_EQ((*limits)[1].name, "stack");
  EXPECT_EQ((*limits)[2].flag_value(), "nofile=1024:4096");
  EXPECT_TRUE(ulimits_with({"none"})->empty());
  EXPECT_EQ(*ulimits_with({}), default_ulimits());
  EXPECT_FALSE(ulimits_with({"none", "memlock=1"}));
}

}  // namespace
}  // namespace muster::container
