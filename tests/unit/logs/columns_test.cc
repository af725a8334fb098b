#include "logs/columns.h"

#include <gtest/gtest.h>

namespace muster::logs {
namespace {

TEST(Columns, CountsCodePointsNotBytesAndSkipsEscapes) {
  EXPECT_EQ(display_columns("abc"), 3u);
  EXPECT_EQ(display_columns("\xe2\x96\x88\xe2\x96\x88 45%"), 6u);
  EXPECT_EQ(display_columns("\x1b[31mred\x1b[0m"), 3u);
  EXPECT_EQ(display_columns("\x1b]0;title\a!"), 1u);
  EXPECT_EQ(display_columns("\x1b]8;;http://x\x1b\\link"), 4u);
}

TEST(Columns, FitNeverCutsASequence) {
  std::string bar = "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88";
  EXPECT_EQ(fit_columns(bar, 2), 6u);
  EXPECT_EQ(fit_columns("abcdef", 4), 4u);
  EXPECT_EQ(fit_columns("ab", 10), 2u);
  EXPECT_EQ(fit_columns("\x1b[31mabc", 1), 6u);  // escape kept, one glyph
  EXPECT_EQ(fit_columns("ab\x1b[0m", 2), 6u);    // trailing escape takes no room
  EXPECT_EQ(fit_columns("abc", 0), 0u);
}

}  // namespace
}  // namespace muster::logs
