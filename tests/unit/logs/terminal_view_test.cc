#include "logs/terminal_view.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "logs/line_splitter.h"

namespace muster::logs {
namespace {

const Source r0{0, 0, 0, "n0", kStdout};
const Source r0e{0, 0, 0, "n0", kStderr};
const Source r1{1, 0, 1, "n1", kStdout};
const Source r1e{1, 0, 1, "n1", kStderr};
const Source r2e{2, 1, 1, "n1", kStderr};

TerminalOptions options(bool tty, bool color = false) {
  TerminalOptions o;
  o.is_tty = tty;
  o.color = color;
  return o;
}

// What a fast terminal receives: everything pending, written at once.
std::string drain(TerminalView& view) {
  std::string out(view.pending());
  view.consumed(out.size());
  return out;
}

// Feeds one chunk through a splitter into the view, the way LogMux does.
void feed(TerminalView& view, LineSplitter& splitter, const Source& source, std::string_view bytes,
          int64_t now_ms) {
  for (const auto& event : splitter.feed(bytes)) {
    if (const auto* line = std::get_if<Line>(&event)) {
      view.line(source, line->text);
    } else {
      view.progress(source, std::get<Progress>(event).text, now_ms);
    }
  }
}

std::string without_erase(std::string text) {
  for (size_t pos; (pos = text.find("\r\x1b[K")) != std::string::npos;) text.erase(pos, 4);
  return text;
}

// ---- not a TTY ----

TEST(TerminalViewPlain, LinesArePrefixedWhole) {
  TerminalView view(options(false));
  view.line(r0, "hello");
  view.line(r1e, "world");
  view.notice("muster: n1 lost");
  EXPECT_EQ(drain(view), "[n0:0] hello\n[n1:1] world\nmuster: n1 lost\n");
}

TEST(TerminalViewPlain, TqdmBarIsSampledOncePerIntervalAndItsLastStateKept) {
  TerminalView view(options(false));
  LineSplitter splitter;
  for (int i = 0; i < 100; ++i) feed(view, splitter, r0e, "\r" + std::to_string(i) + "%", i * 250);
  feed(view, splitter, r0e, "\r100%\n", 25'000);
  EXPECT_EQ(drain(view), "[n0:0] 0%\n[n0:0] 40%\n[n0:0] 80%\n[n0:0] 99%\n[n0:0] 100%\n");
}

TEST(TerminalViewPlain, TickPrintsHeldBackProgressOnceTheIntervalPassed) {
  TerminalView view(options(false));
  view.progress(r0e, "a", 0);
  view.progress(r0e, "b", 1);
  view.tick(9'999);
  EXPECT_EQ(drain(view), "[n0:0] a\n");
  view.tick(10'000);
  view.tick(30'000);
  EXPECT_EQ(drain(view), "[n0:0] b\n");
  view.progress(r0e, "c", 30'001);
  EXPECT_EQ(drain(view), "[n0:0] c\n");
}

TEST(TerminalViewPlain, FinalProgressIsPrintedAtTheNextLineOfItsStreamOrAtEof) {
  TerminalView view(options(false));
  view.progress(r0e, "a", 0);
  view.progress(r0e, "b", 1);
  view.line(r0, "stdout line");  // another stream: the bar goes on
  view.line(r0e, "stderr line");
  view.progress(r1e, "x", 2);
  view.progress(r1e, "y", 3);
  view.end_of_stream(r1e);
  view.end_of_stream(r1e);
  view.progress(r0e, "z", 20'000);
  view.end_of_stream(r0e);  // already shown: not again
  EXPECT_EQ(drain(view),
            "[n0:0] a\n[n0:0] stdout line\n[n0:0] b\n[n0:0] stderr line\n"
            "[n1:1] x\n[n1:1] y\n[n0:0] z\n");
}

TEST(TerminalViewPlain, NeverAnEscapeCodeEvenWithColorRequested) {
  TerminalView view(options(false, /*color=*/true));
  view.line(r0, "a");
  view.progress(r1e, "50%", 0);
  view.notice("muster: note");
  view.finish();
  std::string out = drain(view);
  EXPECT_EQ(out, "[n0:0] a\n[n1:1] 50%\nmuster: note\n");
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
}

// ---- TTY ----

TEST(TerminalViewTty, StatusLineIsErasedBeforeLinesAndRedrawnAfter) {
  TerminalView view(options(true));
  view.progress(r0e, "10%", 0);
  EXPECT_EQ(drain(view), "[n0:0] 10%");
  view.line(r0, "hi");
  EXPECT_EQ(drain(view), "\r\x1b[K[n0:0] hi\n[n0:0] 10%");
  view.progress(r0e, "20%", 1);
  EXPECT_EQ(drain(view), "\r\x1b[K[n0:0] 20%");
  view.progress(r0e, "20%", 2);
  EXPECT_EQ(drain(view), "");
  view.notice("muster: n1 lost");
  EXPECT_EQ(drain(view), "\r\x1b[Kmuster: n1 lost\n[n0:0] 20%");
  view.finish();  // the final state stays on screen as a line; no status left behind
  EXPECT_EQ(drain(view), "\r\x1b[K[n0:0] 20%\n");
}

TEST(TerminalViewTty, UnwrittenStatusIsTakenBackInsteadOfErased) {
  TerminalView view(options(true));
  view.progress(r0e, "10%", 0);
  view.line(r0, "a");
  view.line(r0, "b");
  view.progress(r0e, "11%", 1);
  EXPECT_EQ(drain(view), "[n0:0] a\n[n0:0] b\n[n0:0] 11%");
}

TEST(TerminalViewTty, PartlyWrittenStatusIsErased) {
  TerminalView view(options(true));
  view.progress(r0e, "10%", 0);
  view.consumed(3);
  view.line(r0, "a");
  EXPECT_EQ(drain(view), ":0] 10%\r\x1b[K[n0:0] a\n[n0:0] 10%");
}

TEST(TerminalViewTty, StatusShowsTheLowestRankAndCountsTheOthers) {
  TerminalView view(options(true));
  view.progress(r1e, "r1 50%", 0);
  EXPECT_EQ(drain(view), "[n1:1] r1 50%");
  view.progress(r0e, "r0 10%", 1);
  EXPECT_EQ(drain(view), "\r\x1b[K[n0:0] r0 10% (+1 rank)");
  view.progress(r2e, "r2 70%", 2);
  EXPECT_EQ(drain(view), "\r\x1b[K[n0:0] r0 10% (+2 ranks)");
  view.progress(r1e, "r1 60%", 3);
  EXPECT_EQ(drain(view), "");
  view.line(r0e, "r0 done");
  EXPECT_EQ(drain(view), "\r\x1b[K[n0:0] r0 done\n[n1:1] r1 60% (+1 rank)");
}

TEST(TerminalViewTty, StatusIsCutToTheWidthInColumns) {
  TerminalOptions o = options(true);
  o.width = 20;
  TerminalView view(std::move(o));
  const std::string block = "\xe2\x96\x88";
  std::string bar = "45%|";
  for (int i = 0; i < 16; ++i) bar += block;
  bar += "| 45/100";
  view.progress(r0e, bar, 0);
  std::string expected = "[n0:0] 45%|";
  for (int i = 0; i < 9; ++i) expected += block;
  EXPECT_EQ(drain(view), expected);
  view.progress(r1e, "other", 1);
  EXPECT_EQ(drain(view), "\r\x1b[K[n0:0] 45% (+1 rank)");
}

TEST(TerminalViewTty, TqdmBarOnAFastTerminal) {
  TerminalView view(options(true));
  LineSplitter splitter;
  std::string written;
  std::string expected;
  for (int i = 0; i < 10; ++i) {
    std::string bar = std::to_string(i * 10) + "%|" + std::string(i, '#') + std::string(10 - i, ' ') + "|";
    feed(view, splitter, r0e, "\r" + bar, i * 100);
    written += drain(view);
    expected += (i == 0 ? "" : "\r\x1b[K") + ("[n0:0] " + bar);
  }
  feed(view, splitter, r0e, "\r100%|##########|\n", 1000);
  written += drain(view);
  expected += "\r\x1b[K[n0:0] 100%|##########|\n";
  EXPECT_EQ(written, expected);
  view.end_of_stream(r0e);
  view.finish();
  EXPECT_EQ(drain(view), "");
}

TEST(TerminalViewTty, TqdmBarOnAStalledTerminalQueuesOnlyTheResult) {
  TerminalView view(options(true));
  LineSplitter splitter;
  view.line(r0, "start");
  for (int i = 0; i < 1000; ++i) feed(view, splitter, r0e, "\r" + std::to_string(i), i);
  feed(view, splitter, r0e, "\rdone\n", 1000);
  EXPECT_EQ(drain(view), "[n0:0] start\n[n0:0] done\n");
}

TEST(TerminalViewTty, EndOfStreamLeavesTheFinalProgressOnScreen) {
  TerminalView view(options(true));
  view.progress(r0e, "100%", 0);
  view.progress(r1e, "7%", 0);
  drain(view);
  view.end_of_stream(r0);  // another stream of the rank: the bar is not over
  EXPECT_EQ(drain(view), "");
  view.end_of_stream(r0e);
  EXPECT_EQ(drain(view), "\r\x1b[K[n0:0] 100%\n[n1:1] 7%");
}

TEST(TerminalViewTty, ColourPerNodeAndBoldNotices) {
  TerminalView view(options(true, /*color=*/true));
  view.line(r0, "hello");
  view.line(r1, "x");
  view.line(r2e, "y");
  view.notice("muster: n1 lost");
  view.progress(r0e, "5%", 0);
  EXPECT_EQ(drain(view),
            "\x1b[36m[n0:0] \x1b[0mhello\n"
            "\x1b[33m[n1:1] \x1b[0mx\n"
            "\x1b[33m[n1:2] \x1b[0my\n"
            "\x1b[1mmuster: n1 lost\x1b[0m\n"
            "\x1b[36m[n0:0] \x1b[0m5%");
}

TEST(TerminalViewTty, WithoutColourOnlyTheEraseSequenceIsEmitted) {
  TerminalView lines_only(options(true, /*color=*/false));
  lines_only.line(r0, "a");
  lines_only.line(r1e, "b");
  lines_only.notice("muster: note");
  lines_only.finish();
  std::string out = drain(lines_only);
  EXPECT_EQ(out, "[n0:0] a\n[n1:1] b\nmuster: note\n");
  EXPECT_EQ(out.find('\x1b'), std::string::npos);

  TerminalView with_bar(options(true, /*color=*/false));
  with_bar.progress(r0e, "1%", 0);
  with_bar.line(r1, "x");
  drain(with_bar);
  with_bar.progress(r0e, "2%", 1);
  with_bar.notice("muster: note");
  with_bar.finish();
  EXPECT_EQ(without_erase(drain(with_bar)).find('\x1b'), std::string::npos);
}

TEST(TerminalViewTty, WorkerEscapesPassThroughAndATruncatedOneIsReset) {
  TerminalOptions o = options(true);
  o.width = 10;
  TerminalView view(std::move(o));
  view.line(r0, "\x1b[31mred\x1b[0m");
  view.progress(r0e, "\x1b[32mgreen bar", 0);
  EXPECT_EQ(drain(view), "[n0:0] \x1b[31mred\x1b[0m\n[n0:0] \x1b[32mgre\x1b[0m");
}

// ---- filtering and flow control ----

TEST(TerminalView, FilteredRanksAreNotShown) {
  TerminalOptions o = options(true);
  o.ranks = RankFilter::parse("1").value();
  TerminalView view(std::move(o));
  view.line(r0, "hidden");
  view.progress(r0e, "hidden 50%", 0);
  view.end_of_stream(r0e);
  view.line(r1, "shown");
  view.notice("muster: notices are never filtered");
  view.finish();
  EXPECT_EQ(drain(view), "[n1:1] shown\nmuster: notices are never filtered\n");
}

TEST(TerminalView, SlowTerminalDropsWholeLinesThenSaysHowMany) {
  TerminalOptions o = options(false);
  o.max_pending_bytes = 256;
  o.log_dir = "/runs/7/logs";
  TerminalView view(std::move(o));
  auto text = [](int n) { return fmt::format("line {:02}.....", n); };  // 20 bytes with prefix and '\n'
  std::string expected;
  for (int n = 1; n <= 12; ++n) {
    view.line(r0, text(n));
    expected += "[n0:0] " + text(n) + "\n";
  }
  EXPECT_EQ(view.pending(), expected);
  view.line(r0, text(13));  // 260 > 256: dropped
  view.line(r0, "x");       // would fit, but once dropping, lines go until the queue drains below half
  EXPECT_EQ(view.dropped_lines(), 2u);
  EXPECT_EQ(view.pending(), expected);
  std::string written(view.pending().substr(0, 100));
  view.consumed(100);  // 140 pending: not below 128 yet
  view.line(r0, text(15));
  written += view.pending().substr(0, 20);
  view.consumed(20);  // 120 pending: the notice goes out
  EXPECT_EQ(view.dropped_lines(), 0u);
  view.line(r0, text(16));
  written += drain(view);
  EXPECT_EQ(written, expected +
                         "muster: 3 lines not shown (terminal too slow); full output in /runs/7/logs\n" +
                         "[n0:0] " + text(16) + "\n");
}

TEST(TerminalView, NoticesAreNeverDropped) {
  TerminalOptions o = options(false);
  o.max_pending_bytes = 10;
  TerminalView view(std::move(o));
  view.line(r0, "too long for the queue");
  view.notice("muster: n1 lost");
  EXPECT_EQ(drain(view), "muster: n1 lost\n");
  EXPECT_EQ(drain(view), "muster: 1 line not shown (terminal too slow)\n");  // queued by consumed()
}

TEST(TerminalView, FinishReportsDroppedLinesEvenWithoutDraining) {
  TerminalOptions o = options(false);
  o.max_pending_bytes = 30;
  TerminalView view(std::move(o));
  view.line(r0, "line 1......");
  view.line(r0, "line 2......");
  view.finish();
  EXPECT_EQ(drain(view), "[n0:0] line 1......\nmuster: 1 line not shown (terminal too slow)\n");
}

TEST(TerminalView, StatusLineStepsAsideWhileDropping) {
  TerminalOptions o = options(true);
  o.max_pending_bytes = 64;
  TerminalView view(std::move(o));
  view.progress(r0e, "p", 0);
  view.line(r0, "line 1......");
  view.line(r0, "line 2......");
  EXPECT_EQ(view.pending(), "[n0:0] line 1......\n[n0:0] line 2......\n[n0:0] p");
  view.line(r0, "line 3......");
  EXPECT_EQ(view.pending(), "[n0:0] line 1......\n[n0:0] line 2......\n");
  view.consumed(40);
  EXPECT_EQ(drain(view), "muster: 1 line not shown (terminal too slow)\n[n0:0] p");
}

}  // namespace
}  // namespace muster::logs
