#include "util/edit_distance.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(EditDistance, Basics) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("launch", "lanch"), 1u);
  EXPECT_EQ(edit_distance("doctor", "dcotor"), 2u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
}

TEST(EditDistance, ClosestMatchSuggestsOnlyPlausibleTypos) {
  std::vector<std::string> commands = {"launch", "doctor", "sync", "setup", "gen", "version"};
  EXPECT_EQ(closest_match("lanch", commands), "launch");
  EXPECT_EQ(closest_match("docter", commands), "doctor");
  EXPECT_EQ(closest_match("vers", commands), "version");  // prefix
  EXPECT_EQ(closest_match("xyzzy", commands), std::nullopt);
}

}  // namespace
}  // namespace muster
