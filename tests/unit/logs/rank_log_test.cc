#include "logs/rank_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "logs/file_sink.h"
#include "logs/line_tap.h"
#include "logs/log_mux.h"
#include "logs/rank_filter.h"
#include "logs/tail_buffer.h"

namespace muster::logs {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("muster-logs-test-" + std::to_string(rd()) + std::to_string(rd()));
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Worker output with everything that must survive byte for byte.
std::string awkward_bytes(std::mt19937& rng, size_t n) {
  static const std::string alphabet =
      std::string("ab \r\n\t\x1b[0m\xe2\x96\x88\xff", 15) + std::string(1, '\0');
  std::string out;
  for (size_t i = 0; i < n; ++i) out += alphabet[rng() % alphabet.size()];
  return out;
}

TEST(RankLogSet, CreatesTheDirectoryAndOneFilePerRank) {
  TempDir tmp;
  auto logs = RankLogSet::open(tmp.path() / "run" / "logs", 3);
  ASSERT_TRUE(logs) << logs.error().message;
  EXPECT_EQ(logs->path(2), tmp.path() / "run" / "logs" / "rank-2.log");
  ASSERT_TRUE(logs->write(1, "hello\r\n"));
  ASSERT_TRUE(logs->flush());
  EXPECT_EQ(read_file(logs->path(0)), "");
  EXPECT_EQ(read_file(logs->path(1)), "hello\r\n");
  EXPECT_TRUE(fs::exists(logs->path(2)));
}

TEST(RankLogSet, RankOutOfRangeIsAnError) {
  TempDir tmp;
  auto logs = RankLogSet::open(tmp.path(), 2);
  ASSERT_TRUE(logs);
  auto result = logs->write(2, "x");
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::protocol);
  EXPECT_FALSE(logs->write(-1, "x"));
}

TEST(RankLogSet, UnwritableDirectoryIsAnIoErrorNamingIt) {
  TempDir tmp;
  fs::create_directories(tmp.path());
  std::ofstream(tmp.path() / "file") << "not a dir";
  auto logs = RankLogSet::open(tmp.path() / "file" / "logs", 1);
  ASSERT_FALSE(logs);
  EXPECT_EQ(logs.error().kind, ErrorKind::io);
  EXPECT_NE(logs.error().message.find((tmp.path() / "file" / "logs").string()), std::string::npos)
      << logs.error().message;
}

TEST(RankLogSet, SinksComeFromTheOpener) {
  struct MemorySink : ByteSink {
    std::string* out;
    explicit MemorySink(std::string* o) : out(o) {}
    Result<void> write(std::string_view bytes) override {
      out->append(bytes);
      return {};
    }
  };
  TempDir tmp;
  std::map<std::string, std::string> written;
  std::vector<std::string> created;
  auto logs = RankLogSet::open(tmp.path(), 2, [&](const fs::path& path, bool create) -> Result<std::unique_ptr<ByteSink>> {
    if (create) created.push_back(path.filename().string());
    return std::unique_ptr<ByteSink>(new MemorySink(&written[path.filename().string()]));
  });
  ASSERT_TRUE(logs);
  EXPECT_EQ(created, (std::vector<std::string>{"rank-0.log", "rank-1.log"}));
  ASSERT_TRUE(logs->write(1, "abc"));
  EXPECT_EQ(written["rank-1.log"], "abc");
  EXPECT_EQ(written["rank-0.log"], "");
}

// A sink that counts how many of its kind are open at once, and buffers like a real one until flushed or closed.
struct CountingSink : ByteSink {
  static inline int open_now = 0;
  static inline int open_max = 0;
  std::string* file;
  std::string buffer;
  explicit CountingSink(std::string* f) : file(f) { open_max = std::max(open_max, ++open_now); }
  ~CountingSink() override {
    file->append(buffer);
    --open_now;
  }
  Result<void> write(std::string_view bytes) override {
    buffer.append(bytes);
    return {};
  }
  Result<void> flush() override {
    file->append(buffer);
    buffer.clear();
    return {};
  }
};

TEST(RankLogSet, HoldsAtMostMaxOpenFilesAndLosesNoByte) {
  TempDir tmp;
  std::map<std::string, std::string> files;
  CountingSink::open_now = CountingSink::open_max = 0;
  constexpr int kRanks = 1000;
  auto logs = RankLogSet::open(
      tmp.path(), kRanks,
      [&](const fs::path& path, bool create) -> Result<std::unique_ptr<ByteSink>> {
        std::string& file = files[path.filename().string()];
        if (create) file.clear();
        return std::unique_ptr<ByteSink>(new CountingSink(&file));
      },
      16);
  ASSERT_TRUE(logs);
  std::mt19937 rng(7);
  std::map<int, std::string> expected;
  for (int chunk = 0; chunk < 20000; ++chunk) {
    // Mostly a few busy ranks, sometimes any of the thousand: both hits and evictions.
    int rank = rng() % 4 ? static_cast<int>(rng() % 20) : static_cast<int>(rng() % kRanks);
    std::string bytes = awkward_bytes(rng, rng() % 50);
    expected[rank] += bytes;
    ASSERT_TRUE(logs->write(rank, bytes));
    ASSERT_LE(logs->open_count(), 16);
  }
  ASSERT_TRUE(logs->flush());
  EXPECT_LE(CountingSink::open_max, 16);
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_TRUE(files[fmt::format("rank-{}.log", rank)] == expected[rank]) << "rank " << rank << " differs";
  }
}

// A sink that cannot write its bytes out when it is closed to make room: the error is reported, and the rank that
// needed the room still gets its bytes.
TEST(RankLogSet, AFailureToCloseASinkIsReportedAndTheWriteStillHappens) {
  struct FailingFlush : ByteSink {
    std::string* file;
    explicit FailingFlush(std::string* f) : file(f) {}
    Result<void> write(std::string_view bytes) override {
      file->append(bytes);
      return {};
    }
    Result<void> flush() override { return make_error(ErrorKind::io, "disk full"); }
  };
  TempDir tmp;
  std::map<std::string, std::string> files;
  auto logs = RankLogSet::open(
      tmp.path(), 2,
      [&](const fs::path& path, bool create) -> Result<std::unique_ptr<ByteSink>> {
        if (create) return std::unique_ptr<ByteSink>(new CountingSink(&files[path.filename().string()]));
        return std::unique_ptr<ByteSink>(new FailingFlush(&files[path.filename().string()]));
      },
      1);
  ASSERT_TRUE(logs);
  ASSERT_TRUE(logs->write(0, "a"));
  auto second = logs->write(1, "b");  // closes rank 0's sink, whose flush fails
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().message, "disk full");
  EXPECT_EQ(files["rank-1.log"], "b");
}

TEST(RankLogSet, FilesReopenedForAppendKeepEarlierBytes) {
  TempDir tmp;
  auto logs = RankLogSet::open(tmp.path(), 3, {}, 1);  // FileSinks, one open at a time
  ASSERT_TRUE(logs);
  for (int round = 0; round < 3; ++round) {
    for (int rank = 0; rank < 3; ++rank) ASSERT_TRUE(logs->write(rank, fmt::format("{}.{}\n", rank, round)));
  }
  ASSERT_TRUE(logs->flush());
  EXPECT_EQ(read_file(logs->path(1)), "1.0\n1.1\n1.2\n");
  EXPECT_EQ(logs->open_count(), 1);
}

TEST(LogMux, RankLogsAreByteIdenticalToInputInAnyChunking) {
  TempDir tmp;
  auto logs = RankLogSet::open(tmp.path(), 3);
  ASSERT_TRUE(logs);
  TerminalOptions o;
  o.max_pending_bytes = 1 << 30;
  TerminalView view(std::move(o));
  LogMux mux(*logs, view);

  std::mt19937 rng(42);
  std::map<int, std::string> expected;
  for (int chunk = 0; chunk < 3000; ++chunk) {
    int rank = static_cast<int>(rng() % 3);
    Source source{rank, rank, 0, "n0", rng() % 2 ? kStdout : kStderr};
    std::string bytes = awkward_bytes(rng, rng() % 300);
    expected[rank] += bytes;
    ASSERT_TRUE(mux.output(source, bytes, chunk));
    if (chunk % 100 == 0) view.consumed(view.pending().size());
  }
  for (int rank = 0; rank < 3; ++rank) {
    for (int stream : {kStdout, kStderr}) mux.end_of_stream(Source{rank, rank, 0, "n0", stream}, 3000);
  }
  ASSERT_TRUE(logs->flush());
  for (int rank = 0; rank < 3; ++rank) {
    std::string got = read_file(logs->path(rank));
    ASSERT_EQ(got.size(), expected[rank].size()) << rank;
    EXPECT_TRUE(got == expected[rank]) << "rank " << rank << " differs";
  }
}

TEST(LogMux, TailKeepsTheLastCompleteLinesOfBothStreams) {
  TempDir tmp;
  auto logs = RankLogSet::open(tmp.path(), 2);
  ASSERT_TRUE(logs);
  TerminalView view(TerminalOptions{});
  LogMux mux(*logs, view, 3);
  Source out{1, 0, 0, "n0", kStdout};
  Source err{1, 0, 0, "n0", kStderr};
  ASSERT_TRUE(mux.output(out, "one\ntw", 0));
  ASSERT_TRUE(mux.output(err, "Traceback (most recent call last):\n", 0));  // not glued to "tw"
  ASSERT_TRUE(mux.output(out, "o\n50%\r", 0));
  ASSERT_TRUE(mux.output(err, "RuntimeError: CUDA out of memory", 0));
  EXPECT_EQ(mux.tail(1).lines(),
            (std::deque<std::string>{"one", "Traceback (most recent call last):", "two"}));
  mux.end_of_stream(err, 1);
  EXPECT_EQ(mux.tail(1).lines(), (std::deque<std::string>{"Traceback (most recent call last):", "two",
                                                          "RuntimeError: CUDA out of memory"}));
  EXPECT_TRUE(mux.tail(0).lines().empty());
  EXPECT_EQ(std::string(view.pending()),
            "[n0:1] one\n[n0:1] Traceback (most recent call last):\n[n0:1] two\n[n0:1] 50%\n"
            "[n0:1] RuntimeError: CUDA out of memory\n");
}

// What the view gets, a tap gets too (the attach clients' feed): lines, progress, ends of stream, in order.
class RecordingTap final : public LineTap {
 public:
  void line(const Source& source, std::string_view text) override { add("line", source, text); }
  void progress(const Source& source, std::string_view text, int64_t) override { add("progress", source, text); }
  void end_of_stream(const Source& source) override { add("eos", source, ""); }
  std::vector<std::string> events;

 private:
  void add(const char* kind, const Source& source, std::string_view text) {
    events.push_back(fmt::format("{} {}:{} {}", kind, source.rank, stream_name(source.stream), text));
  }
};

TEST(LogMux, ATapGetsWhatTheViewGets) {
  TempDir tmp;
  auto logs = RankLogSet::open(tmp.path(), 2);
  ASSERT_TRUE(logs);
  TerminalView view(TerminalOptions{});
  LogMux mux(*logs, view);
  RecordingTap tap;
  mux.set_tap(&tap);
  Source out{0, 0, 0, "n0", kStdout};
  Source err{1, 1, 0, "n0", kStderr};
  ASSERT_TRUE(mux.output(out, "a\nb", 0));
  ASSERT_TRUE(mux.output(err, " 10%\r", 0));
  ASSERT_TRUE(mux.output(out, "c\n", 0));
  mux.end_of_stream(err, 0);
  mux.set_tap(nullptr);
  ASSERT_TRUE(mux.output(out, "d\n", 0));
  EXPECT_EQ(tap.events, (std::vector<std::string>{"line 0:out a", "progress 1:err  10%", "line 0:out bc", "eos 1:err "}));
}

TEST(RankFilter, NoneShowsNoRank) {
  auto none = RankFilter::none();
  EXPECT_FALSE(none.is_all());
  EXPECT_FALSE(none.contains(0));
  EXPECT_TRUE(none.check_world_size(4));
}

TEST(TailBuffer, BoundedInLinesAndBytes) {
  TailBuffer tail(2, 5);
  tail.add("a");
  tail.add("b");
  tail.add("0123456789");
  EXPECT_EQ(tail.lines(), (std::deque<std::string>{"b", "01234..."}));
  TailBuffer none(0);
  none.add("x");
  EXPECT_TRUE(none.lines().empty());
}

TEST(FileSink, FlushMakesBytesVisible) {
  TempDir tmp;
  fs::create_directories(tmp.path());
  auto sink = FileSink::open(tmp.path() / "f.log");
  ASSERT_TRUE(sink);
  ASSERT_TRUE((*sink)->write(std::string("a\0b", 3)));
  ASSERT_TRUE((*sink)->flush());
  EXPECT_EQ(read_file(tmp.path() / "f.log"), std::string("a\0b", 3));
}

}  // namespace
}  // namespace muster::logs
