// Where the links of a source tree point, resolved through each other as a node will resolve them.
#include "sync/links.h"

#include <gtest/gtest.h>

namespace muster::sync {
namespace {

Entry link(std::string path, std::string target) {
  uint64_t size = target.size();
  return Entry{std::move(path), EntryKind::symlink, 0777, size, 0, 0, std::move(target)};
}
Entry dir(std::string path) { return Entry{std::move(path), EntryKind::directory, 0755, 0, 1, 0, ""}; }

LinkReach reach(const std::vector<Entry>& entries, const std::string& path) {
  for (const auto& entry : entries) {
    if (entry.path == path) return link_reach(entries, entry, "/src/tree");
  }
  ADD_FAILURE() << "no " << path;
  return LinkReach::inside;
}

TEST(LinkReach, ResolvedThroughOtherLinksNotLexically) {
  // The case: b points at the root; c's `b/..` then climbs above it, though lexically it stays in a.
  std::vector<Entry> tree{dir("a"), link("a/b", ".."), link("a/c", "b/..")};
  EXPECT_EQ(reach(tree, "a/b"), LinkReach::inside);
  EXPECT_EQ(reach(tree, "a/c"), LinkReach::outside);
  // Deeper: a link to a directory link, then up twice.
  std::vector<Entry> deep{dir("x"), dir("x/y"), link("x/y/down", "."), link("x/y/up", "down/../../..")};
  EXPECT_EQ(reach(deep, "x/y/up"), LinkReach::outside);
  std::vector<Entry> stays{dir("x"), dir("x/y"), link("x/y/down", "."), link("x/y/up", "down/../..")};
  EXPECT_EQ(reach(stays, "x/y/up"), LinkReach::inside);
}

TEST(LinkReach, Kinds) {
  std::vector<Entry> tree{dir("a"),
                          link("a/in", "../b"),
                          link("a/out", "../../x"),
                          link("abs_out", "/usr/lib/libx.so"),
                          link("abs_in", "/src/tree/a"),
                          link("abs_in_dots", "/src/./tree/b"),
                          link("abs_other", "/src/treehouse/b"),
                          link("dangling", "a/nothing/here"),
                          link("loop1", "loop2"),
                          link("loop2", "loop1"),
                          link("via_out", "a/out")};
  EXPECT_EQ(reach(tree, "a/in"), LinkReach::inside);
  EXPECT_EQ(reach(tree, "a/out"), LinkReach::outside);
  EXPECT_EQ(reach(tree, "abs_out"), LinkReach::absolute_outside);
  EXPECT_EQ(reach(tree, "abs_in"), LinkReach::absolute_inside);
  EXPECT_EQ(reach(tree, "abs_in_dots"), LinkReach::absolute_inside);
  EXPECT_EQ(reach(tree, "abs_other"), LinkReach::absolute_outside);
  EXPECT_EQ(reach(tree, "dangling"), LinkReach::inside);
  EXPECT_EQ(reach(tree, "loop1"), LinkReach::inside);
  // A link to a link that leaves: only the one that leaves is to decide about.
  EXPECT_EQ(reach(tree, "via_out"), LinkReach::inside);
}

TEST(LinkSurvey, WhatNeedsAChoiceDependsOnTheDestination) {
  std::vector<Entry> tree{dir("a"), link("a/out", "../../x"), link("abs_out", "/usr/lib"), link("abs_in", "/src/tree/a"),
                          link("in", "a")};
  auto same = survey_links(tree, "/src/tree", true);
  EXPECT_EQ(same.node_local.size(), 2u);  // a/out, abs_out
  EXPECT_TRUE(same.moved.empty());
  auto moved = survey_links(tree, "/src/tree", false);
  ASSERT_EQ(moved.moved.size(), 2u);  // a/out climbs out, abs_in points back at the source
  EXPECT_EQ(moved.moved[0].path, "a/out");
  EXPECT_EQ(moved.moved[1].path, "abs_in");
  ASSERT_EQ(moved.node_local.size(), 1u);
  EXPECT_EQ(moved.node_local[0].path, "abs_out");
  EXPECT_EQ(moved.leaving(), 3u);
}

}  // namespace
}  // namespace muster::sync
