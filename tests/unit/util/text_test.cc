#include "util/text.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(Trim, DropsBlanksAtBothEndsOnly) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim("a"), "a");
  EXPECT_EQ(trim(" \t\r\n "), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("\va\v"), "\va\v");  // only space, tab, CR and LF are blanks
}

TEST(SplitLines, AFinalNewlineMakesNoEmptyLine) {
  EXPECT_EQ(split_lines("a\nb\n"), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(split_lines("a\nb"), (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(split_lines("a\n\nb"), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(split_lines("\n"), (std::vector<std::string_view>{""}));
  EXPECT_TRUE(split_lines("").empty());
  EXPECT_EQ(split_lines("a\r\n"), (std::vector<std::string_view>{"a\r"}));  // CR is the caller's (trim)
}

TEST(SplitLines, LinesAreViewsIntoTheText) {
  std::string text = "one\ntwo\n";
  auto lines = split_lines(text);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].data(), text.data() + 4);
}

TEST(Join, PutsTheSeparatorBetweenEachTwo) {
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({"a"}, ", "), "a");
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(join({"", "b"}, "/"), "/b");  // empty items keep their place
  EXPECT_EQ(join({"launch", "sync"}, "."), "launch.sync");
  EXPECT_EQ(join({"a", "b"}, ""), "ab");
}

TEST(OneLine, WritesControlCharactersAsHex) {
  EXPECT_EQ(one_line("plain text"), "plain text");
  EXPECT_EQ(one_line("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
  EXPECT_EQ(one_line(std::string("\0", 1)), "\\x00");
  EXPECT_EQ(one_line("\xc3\xa9"), "\xc3\xa9");  // UTF-8 stays as it is
}

}  // namespace
}  // namespace muster
