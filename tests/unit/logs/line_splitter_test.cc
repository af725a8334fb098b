#include "logs/line_splitter.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace muster::logs {

void PrintTo(const Line& line, std::ostream* os) {
  *os << "Line{" << testing::PrintToString(line.text) << "}";
}
void PrintTo(const Progress& p, std::ostream* os) {
  *os << "Progress{" << testing::PrintToString(p.text) << "}";
}

namespace {

using Events = std::vector<SplitEvent>;

Events feed_all(LineSplitter& splitter, const std::vector<std::string>& chunks) {
  Events all;
  for (const std::string& chunk : chunks) {
    for (auto& event : splitter.feed(chunk)) all.push_back(std::move(event));
  }
  for (auto& event : splitter.flush()) all.push_back(std::move(event));
  return all;
}

std::vector<std::string> lines_of(const Events& events) {
  std::vector<std::string> lines;
  for (const auto& event : events) {
    if (const auto* line = std::get_if<Line>(&event)) lines.push_back(line->text);
  }
  return lines;
}

TEST(LineSplitter, CompleteLines) {
  LineSplitter splitter;
  EXPECT_EQ(splitter.feed("a\nbc\n\n"), (Events{Line{"a"}, Line{"bc"}, Line{""}}));
  EXPECT_EQ(splitter.flush(), Events{});
}

TEST(LineSplitter, LineSplitAcrossChunks) {
  LineSplitter splitter;
  EXPECT_EQ(splitter.feed("hel"), Events{});
  EXPECT_EQ(splitter.feed("lo wo"), Events{});
  EXPECT_EQ(splitter.feed("rld\nnext"), Events{Line{"hello world"}});
  EXPECT_EQ(splitter.flush(), Events{Line{"next"}});
}

TEST(LineSplitter, CrlfIsOneNewline) {
  LineSplitter splitter;
  EXPECT_EQ(splitter.feed("a\r\nb\r\n"), (Events{Line{"a"}, Line{"b"}}));
}

TEST(LineSplitter, CrlfSplitAcrossChunksStillEndsTheLine) {
  LineSplitter splitter;
  // The chunk ends in '\r': the text is shown as the current status until the '\n' arrives (documented).
  EXPECT_EQ(splitter.feed("a\r"), Events{Progress{"a"}});
  EXPECT_EQ(splitter.feed("\nb\n"), (Events{Line{"a"}, Line{"b"}}));
}

TEST(LineSplitter, LatestProgressSegmentOfAChunkWins) {
  LineSplitter splitter;
  EXPECT_EQ(splitter.feed("a\rb\rc\r"), Events{Progress{"c"}});
  EXPECT_EQ(splitter.feed("d\re\r\r"), Events{Progress{"e"}});
}

TEST(LineSplitter, ProgressBeforeALineIsEmittedBeforeIt) {
  LineSplitter splitter;
  EXPECT_EQ(splitter.feed("10%\r20%\rdone\nx\r"), (Events{Progress{"20%"}, Line{"done"}, Progress{"x"}}));
}

TEST(LineSplitter, TqdmStyleLeadingCarriageReturnShowsTheCurrentBar) {
  LineSplitter splitter;
  EXPECT_EQ(splitter.feed("\r  0%|          | 0/10"), Events{Progress{"  0%|          | 0/10"}});
  EXPECT_EQ(splitter.feed("\r 10%|#         | 1/10"), Events{Progress{" 10%|#         | 1/10"}});
  // The leading '\r' of the next redraw ends a segment that was already shown: no repeat.
  EXPECT_EQ(splitter.feed("\r"), Events{});
  EXPECT_EQ(splitter.feed("100%|##########| 10/10\n"), Events{Line{"100%|##########| 10/10"}});
  EXPECT_EQ(splitter.flush(), Events{});
}

TEST(LineSplitter, ATailShorterThanTheLastRedrawWaitsForItsEnd) {
  LineSplitter splitter;
  EXPECT_EQ(splitter.feed("\r 90%|######### |\r 10"), Events{Progress{" 90%|######### |"}});
  EXPECT_EQ(splitter.feed("0%|##########|"), Events{Progress{" 100%|##########|"}});
  EXPECT_EQ(splitter.feed("\n"), Events{Line{" 100%|##########|"}});
  // A new line starts without a previous redraw to compare with.
  EXPECT_EQ(splitter.feed("\rx"), Events{Progress{"x"}});
}

TEST(LineSplitter, TqdmUpdatesInOneChunk) {
  LineSplitter splitter;
  std::string chunk;
  for (int i = 0; i <= 100; ++i) chunk += "\r" + std::to_string(i) + "%";
  chunk += "\n";
  EXPECT_EQ(splitter.feed(chunk), (Events{Progress{"99%"}, Line{"100%"}}));
}

TEST(LineSplitter, BlankSegmentsAreNotProgress) {
  // tqdm.write(): erase the bar with spaces, print the message, redraw the bar.
  LineSplitter splitter;
  EXPECT_EQ(splitter.feed("\rA\r     \rmsg\n\rA"), (Events{Progress{"A"}, Line{"msg"}, Progress{"A"}}));
  EXPECT_EQ(splitter.feed("\r   \r"), Events{});
}

TEST(LineSplitter, FlushEmitsFinalPartialLineAndFinalProgress) {
  LineSplitter a;
  EXPECT_EQ(a.feed("no newline"), Events{});
  EXPECT_EQ(a.flush(), Events{Line{"no newline"}});
  EXPECT_EQ(a.flush(), Events{});

  LineSplitter b;
  EXPECT_EQ(b.feed("50%\r60%"), Events{Progress{"60%"}});
  EXPECT_EQ(b.flush(), Events{Line{"60%"}});  // the unterminated final state becomes a line

  LineSplitter c;
  EXPECT_EQ(c.feed("50%\r100%\r"), Events{Progress{"100%"}});
  EXPECT_EQ(c.flush(), Events{});  // already shown; the view keeps it at end of stream
}

TEST(LineSplitter, EscapesNulsAndInvalidUtf8PassThrough) {
  LineSplitter splitter;
  std::string text("\x1b[31mred\x1b[0m \0 \xff\xfe", 17);
  EXPECT_EQ(splitter.feed(text + "\n"), Events{Line{text}});
}

TEST(LineSplitter, LongLineIsEmittedInBoundedPieces) {
  LineSplitter splitter;
  std::string line;
  for (int i = 0; i < 70 * 1024; ++i) line += static_cast<char>('a' + i % 26);
  Events events;
  for (size_t pos = 0; pos < line.size(); pos += 1000) {
    for (auto& e : splitter.feed(line.substr(pos, 1000))) events.push_back(std::move(e));
  }
  for (auto& e : splitter.feed("\n")) events.push_back(std::move(e));
  ASSERT_EQ(events.size(), 2u);
  auto lines = lines_of(events);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), 64u * 1024);
  EXPECT_EQ(lines[0] + lines[1], line);
}

TEST(LineSplitter, LongLineIsCutOnAUtf8Boundary) {
  LineSplitter splitter(8);
  // "abcdefg" then U+00E9 (2 bytes): cutting at 8 bytes would split it.
  EXPECT_EQ(splitter.feed("abcdefg\xc3\xa9xyz\n"), (Events{Line{"abcdefg"}, Line{"\xc3\xa9xyz"}}));
  // A 3-byte sequence (U+2588 FULL BLOCK) straddling the cut.
  LineSplitter other(8);
  EXPECT_EQ(other.feed("abcdef\xe2\x96\x88!\n"), (Events{Line{"abcdef"}, Line{"\xe2\x96\x88!"}}));
}

TEST(LineSplitter, LinesDoNotDependOnWhereChunksSplit) {
  const std::string input =
      "hello\r\nworld\n\rA\rB\rC\n\x1b[1mbold\x1b[0m\n\n50%\r60%\rtail\r\n\xe2\x96\x88 end\rlast";
  LineSplitter whole_splitter;
  const auto expected = lines_of(feed_all(whole_splitter, {input}));
  ASSERT_EQ(expected,
            (std::vector<std::string>{"hello", "world", "C", "\x1b[1mbold\x1b[0m", "", "tail", "last"}));
  for (size_t i = 0; i <= input.size(); ++i) {
    for (size_t j = i; j <= input.size(); ++j) {
      LineSplitter splitter;
      auto got = feed_all(splitter, {input.substr(0, i), input.substr(i, j - i), input.substr(j)});
      ASSERT_EQ(lines_of(got), expected) << "split at " << i << " and " << j;
    }
  }
  std::vector<std::string> bytes;
  for (char c : input) bytes.emplace_back(1, c);
  LineSplitter byte_splitter;
  EXPECT_EQ(lines_of(feed_all(byte_splitter, bytes)), expected);
}

TEST(LineSplitter, ProgressIsNeverShownTwiceForTheSameSegment) {
  std::mt19937 rng(7);
  std::string input;
  for (int i = 0; i < 200; ++i) input += "\rstep " + std::to_string(i);
  input += "\n";
  for (int round = 0; round < 50; ++round) {
    LineSplitter splitter;
    Events events;
    for (size_t pos = 0; pos < input.size();) {
      size_t n = std::uniform_int_distribution<size_t>(1, 40)(rng);
      for (auto& e : splitter.feed(input.substr(pos, n))) events.push_back(std::move(e));
      pos += n;
    }
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back(), SplitEvent(Line{"step 199"}));
    for (size_t k = 1; k < events.size(); ++k) ASSERT_NE(events[k], events[k - 1]) << k;
  }
}

}  // namespace
}  // namespace muster::logs
