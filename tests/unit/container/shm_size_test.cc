#include "container/shm_size.h"

#include <gtest/gtest.h>

namespace muster::container {
namespace {

TEST(ShmSize, OneSizeForComposeAndKubernetes) {
  for (const char* text : {"16g", "16G", "16gb", "16Gi", "16GiB"}) {
    auto size = parse_shm_size(text);
    ASSERT_TRUE(size) << text;
    EXPECT_EQ(size->compose(), "16g") << text;
    EXPECT_EQ(size->kubernetes(), "16Gi") << text;
  }
  EXPECT_EQ(parse_shm_size("512m")->kubernetes(), "512Mi");
  EXPECT_EQ(parse_shm_size("1048576")->compose(), "1048576");
  EXPECT_EQ(parse_shm_size("1048576")->kubernetes(), "1048576");
}

TEST(ShmSize, RefusesWhatIsNotASize) {
  for (const char* text : {"", "g", "0", "16x", "16 g", "-1g", "1.5g", "16gg", "99999999999999999g"}) {
    auto size = parse_shm_size(text);
    ASSERT_FALSE(size) << text;
    EXPECT_EQ(size.error().kind, ErrorKind::usage);
  }
}

}  // namespace
}  // namespace muster::container
