#include "exec/line_diff.h"

#include <gtest/gtest.h>

namespace muster::exec {
namespace {

TEST(LineDiff, EqualTextsHaveNoDiff) { EXPECT_EQ(unified_diff("a\nb\n", "a\nb\n", "x", "y"), ""); }

TEST(LineDiff, OneChangedLineWithContext) {
  std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n";
  EXPECT_EQ(unified_diff(a, b, "a", "b"), "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

TEST(LineDiff, FarApartChangesMakeTwoHunks) {
  std::string a, b;
  for (int i = 1; i <= 20; ++i) {
    a += std::to_string(i) + "\n";
    b += (i == 2 || i == 18 ? "x" : std::to_string(i)) + "\n";
  }
  std::string diff = unified_diff(a, b, "a", "b");
  EXPECT_NE(diff.find("@@ -1,5 +1,5 @@\n 1\n-2\n+x\n 3\n 4\n 5\n"), std::string::npos) << diff;
  EXPECT_NE(diff.find("@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+x\n 19\n 20\n"), std::string::npos) << diff;
}

TEST(LineDiff, InsertionsAndDeletions) {
  EXPECT_EQ(unified_diff("a\nc\n", "a\nb\nc\n", "x", "y"), "--- x\n+++ y\n@@ -1,2 +1,3 @@\n a\n+b\n c\n");
  EXPECT_EQ(unified_diff("a\nb\nc\n", "a\nc\n", "x", "y"), "--- x\n+++ y\n@@ -1,3 +1,2 @@\n a\n-b\n c\n");
  EXPECT_EQ(unified_diff("", "a\n", "x", "y"), "--- x\n+++ y\n@@ -0,0 +1 @@\n+a\n");
}

TEST(LineDiff, TheShortestScriptIsFound) {
  // Myers: one deletion and one insertion, not a replacement of everything after the first difference.
  std::string diff = unified_diff("a\nb\nc\nd\ne\n", "b\nc\nd\ne\nf\n", "x", "y", 0);
  EXPECT_EQ(diff, "--- x\n+++ y\n@@ -1 +0,0 @@\n-a\n@@ -5,0 +5 @@\n+f\n");
}

TEST(LineDiff, HugeTextsAreComparedAsWholes) {
  std::string a, b;
  for (int i = 0; i < 50; ++i) a += "a" + std::to_string(i) + "\n", b += "b" + std::to_string(i) + "\n";
  std::string diff = unified_diff(a, b, "x", "y", 3, 10);
  EXPECT_NE(diff.find("@@ -1,50 +1,50 @@"), std::string::npos) << diff.substr(0, 200);
}

}  // namespace
}  // namespace muster::exec
