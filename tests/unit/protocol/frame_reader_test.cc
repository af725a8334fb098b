#include "protocol/frame_reader.h"

#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/codec.h"

namespace muster::protocol {
namespace {

using namespace std::string_literals;

std::string raw_frame(uint8_t type, const std::string& payload) {
  uint32_t length = static_cast<uint32_t>(payload.size() + 1);
  std::string out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
  out.push_back(static_cast<char>(type));
  return out + payload;
}

struct TestStream {
  std::string bytes;
  std::vector<Frame> frames;
};

TestStream sample_stream() {
  TestStream s;
  auto add = [&](uint8_t type, std::string payload) {
    s.bytes += raw_frame(type, payload);
    s.frames.push_back(Frame{type, std::move(payload)});
  };
  add(1, "");
  add(3, "\0\xFF\x01\x02"s);
  add(200, "unknown type");
  add(69, std::string(70000, 'x'));
  add(5, std::string(17, '\0'));
  for (int i = 0; i < 50; ++i)
    add(static_cast<uint8_t>(i), std::string(static_cast<size_t>(i), 'a' + i % 26));
  return s;
}

// Drains every complete frame; fails the test on an error.
void drain(FrameReader& reader, std::vector<Frame>& out) {
  while (true) {
    auto frame = reader.next();
    ASSERT_TRUE(frame.has_value()) << frame.error().message;
    if (!frame->has_value()) return;
    out.push_back(std::move(**frame));
  }
}

TEST(FrameReader, WholeStreamAtOnce) {
  TestStream s = sample_stream();
  FrameReader reader;
  reader.feed(s.bytes);
  std::vector<Frame> frames;
  drain(reader, frames);
  EXPECT_EQ(frames, s.frames);
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(FrameReader, ByteByByte) {
  TestStream s = sample_stream();
  FrameReader reader;
  std::vector<Frame> frames;
  for (char c : s.bytes) {
    reader.feed(std::string_view(&c, 1));
    drain(reader, frames);
  }
  EXPECT_EQ(frames, s.frames);
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(FrameReader, RandomSplits) {
  TestStream s = sample_stream();
  std::mt19937 rng(1234);
  for (int round = 0; round < 200; ++round) {
    FrameReader reader;
    std::vector<Frame> frames;
    size_t pos = 0;
    while (pos < s.bytes.size()) {
      size_t max_piece = round % 2 ? 16 : 100000;
      size_t piece = std::uniform_int_distribution<size_t>(1, max_piece)(rng);
      reader.feed(std::string_view(s.bytes).substr(pos, piece));
      pos += piece;
      if (rng() % 3 != 0) drain(reader, frames);  // sometimes feed twice before reading
    }
    drain(reader, frames);
    ASSERT_EQ(frames, s.frames) << "round " << round;
  }
}

// What a read(2) puts straight into reserve() and commit() says arrived: the same frames as feed(), in random
// pieces (partial reads, reserved space left unused), and a big stream (past ByteQueue's compaction at 1 MiB),
// frames taken between reads.
TEST(FrameReader, ReadInPlaceInRandomPieces) {
  TestStream s = sample_stream();
  for (int i = 0; i < 40; ++i) {
    std::string payload(1000 + static_cast<size_t>(i) * 3000, static_cast<char>('A' + i % 26));
    s.bytes += raw_frame(9, payload);
    s.frames.push_back(Frame{9, payload});
  }
  std::mt19937 rng(99);
  for (int round = 0; round < 50; ++round) {
    FrameReader reader;
    std::vector<Frame> frames;
    size_t pos = 0;
    while (pos < s.bytes.size()) {
      size_t room = std::uniform_int_distribution<size_t>(1, round % 2 ? 64 : 300000)(rng);
      std::span<char> into = reader.reserve(room);
      ASSERT_EQ(into.size(), room);
      size_t got = std::min(std::uniform_int_distribution<size_t>(1, room)(rng), s.bytes.size() - pos);
      std::copy_n(s.bytes.data() + pos, got, into.data());
      reader.commit(got);
      pos += got;
      drain(reader, frames);
    }
    ASSERT_EQ(frames, s.frames) << "round " << round;
    EXPECT_EQ(reader.buffered(), 0u);
  }
}

TEST(FrameReader, ViewsAreTheFramesWithoutCopies) {
  TestStream s = sample_stream();
  FrameReader reader;
  reader.feed(s.bytes);
  std::vector<Frame> frames;
  while (true) {
    auto view = reader.next_view();
    ASSERT_TRUE(view.has_value());
    if (!*view) break;
    frames.push_back(Frame{(*view)->type, std::string((*view)->payload)});
  }
  EXPECT_EQ(frames, s.frames);
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(FrameReader, PartialFrameNeedsMore) {
  std::string frame = raw_frame(2, "abcdefgh");
  FrameReader reader;
  for (size_t cut = 0; cut < frame.size(); ++cut) {
    FrameReader partial;
    partial.feed(std::string_view(frame).substr(0, cut));
    auto next = partial.next();
    ASSERT_TRUE(next.has_value());
    EXPECT_FALSE(next->has_value()) << cut;
    EXPECT_EQ(partial.buffered(), cut);
  }
}

TEST(FrameReader, ZeroLengthIsAnError) {
  FrameReader reader;
  reader.feed(raw_frame(1, "ok") + "\0\0\0\0\x01"s);
  auto first = reader.next();
  ASSERT_TRUE(first.has_value() && first->has_value());
  auto second = reader.next();
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().kind, ErrorKind::protocol);
  EXPECT_NE(second.error().message.find("offset 7"), std::string::npos) << second.error().message;
}

TEST(FrameReader, OversizeIsAnErrorAsSoonAsTheLengthIsIn) {
  for (uint32_t length : {kMaxFrame + 1, 0xFFFFFFFFu}) {
    FrameReader reader;
    std::string header;
    for (int i = 0; i < 4; ++i) header.push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
    reader.feed(header.substr(0, 3));
    auto need = reader.next();
    ASSERT_TRUE(need.has_value());
    EXPECT_FALSE(need->has_value());
    reader.feed(header.substr(3));
    auto next = reader.next();
    ASSERT_FALSE(next.has_value()) << length;
    EXPECT_EQ(next.error().kind, ErrorKind::protocol);
  }
}

TEST(FrameReader, MaxFrameIsAccepted) {
  FrameReader reader;
  reader.feed(raw_frame(3, std::string(kMaxFrame - 1, 'z')));
  auto next = reader.next();
  ASSERT_TRUE(next.has_value()) << next.error().message;
  ASSERT_TRUE(next->has_value());
  EXPECT_EQ((*next)->payload.size(), kMaxFrame - 1);
}

TEST(FrameReader, ErrorIsSticky) {
  FrameReader reader;
  reader.feed("\0\0\0\0"s);
  EXPECT_FALSE(reader.next().has_value());
  reader.feed(raw_frame(1, "valid"));
  EXPECT_FALSE(reader.next().has_value());
}

TEST(FrameReader, UnknownTypeIsSkippedAndTheStreamGoesOn) {
  FrameReader reader;
  reader.feed(raw_frame(100, "from a newer agent") + encode(AgentMessage{WorkerStarted{1, 2}}));
  std::vector<AgentMessage> messages;
  std::vector<Frame> frames;
  drain(reader, frames);
  for (const auto& frame : frames) {
    auto decoded = decode_agent(frame.type, frame.payload);
    ASSERT_TRUE(decoded.has_value());
    if (decoded->has_value()) messages.push_back(**decoded);
  }
  EXPECT_EQ(messages, (std::vector<AgentMessage>{WorkerStarted{1, 2}}));
}

// 64 MiB in small frames and odd-sized reads: quadratic buffering would take minutes.
TEST(FrameReader, LongStreamStaysLinear) {
  std::string chunk;
  for (int i = 0; i < 64; ++i) chunk += raw_frame(3, std::string(1019, static_cast<char>(i)));  // 64 KiB
  FrameReader reader;
  size_t frames = 0;
  size_t bytes = 0;
  for (int round = 0; round < 1024; ++round) {
    for (size_t pos = 0; pos < chunk.size(); pos += 4093) {
      reader.feed(std::string_view(chunk).substr(pos, 4093));
      while (true) {
        auto next = reader.next();
        ASSERT_TRUE(next.has_value());
        if (!next->has_value()) break;
        ++frames;
        bytes += (*next)->payload.size();
      }
    }
  }
  EXPECT_EQ(frames, 64u * 1024u);
  EXPECT_EQ(bytes, 1019u * 64u * 1024u);
  EXPECT_EQ(reader.buffered(), 0u);
}

}  // namespace
}  // namespace muster::protocol
