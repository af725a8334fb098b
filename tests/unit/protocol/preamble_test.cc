#include "protocol/preamble.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/codec.h"
#include "protocol/frame_reader.h"

namespace muster::protocol {
namespace {

using namespace std::string_literals;

const std::string kNonce = "3f9a0c1d2e4b5a69";
const std::string kVersionText = std::to_string(kProtocolVersion);
const std::string kPreamble = "MUSTER-AGENT " + kVersionText + " " + kNonce + "\n";

// What a scanner said over a whole conversation: its events up to Found or an error.
struct Transcript {
  std::vector<PreambleEvent> events;  // without the NeedMore ones
  std::optional<Error> error;
  std::string noise;
};

// Feeds `bytes` in pieces of the given sizes (the rest in one piece), calling next() after each. Bytes not
// yet fed when the preamble is found are appended to its rest, as the caller would feed them to a
// FrameReader, so transcripts of different splits compare equal.
Transcript scan(const std::string& bytes, const std::vector<size_t>& pieces = {}) {
  PreambleScanner scanner(kNonce);
  Transcript t;
  size_t pos = 0;
  for (size_t i = 0; pos < bytes.size() || i == 0; ++i) {
    size_t piece = i < pieces.size() ? pieces[i] : bytes.size() - pos;
    scanner.feed(std::string_view(bytes).substr(pos, piece));
    pos = std::min(pos + piece, bytes.size());
    while (true) {
      auto event = scanner.next();
      if (!event) {
        t.error = event.error();
        t.noise = scanner.noise();
        return t;
      }
      if (std::holds_alternative<PreambleNeedMore>(*event)) break;
      t.events.push_back(*event);
      if (auto* found = std::get_if<PreambleFound>(&t.events.back())) {
        found->rest += bytes.substr(pos);
        t.noise = scanner.noise();
        return t;
      }
    }
  }
  t.noise = scanner.noise();
  return t;
}

PreambleEvent found(std::string rest = "", uint32_t protocol = kProtocolVersion) {
  return PreambleFound{protocol, std::move(rest)};
}

TEST(Preamble, LineFormat) {
  EXPECT_EQ(preamble_line("abc"), "MUSTER-AGENT " + kVersionText + " abc\n");
  EXPECT_EQ(preamble_line(kNonce), kPreamble);
}

TEST(Preamble, Clean) {
  Transcript t = scan(kPreamble);
  ASSERT_FALSE(t.error) << t.error->message;
  EXPECT_EQ(t.events, std::vector<PreambleEvent>{found()});
  EXPECT_EQ(t.noise, "");
}

TEST(Preamble, NothingYet) {
  Transcript t = scan("Welcome to node7\nLast login: ");
  EXPECT_FALSE(t.error);
  EXPECT_TRUE(t.events.empty());
  EXPECT_EQ(t.noise, "Welcome to node7\nLast login: ");
}

TEST(Preamble, MotdNoiseIsKept) {
  std::string motd = "Welcome to Ubuntu\n\n * Documentation: https://help.ubuntu.com\r\n\0\xFF binary\n"s;
  Transcript t = scan(motd + kPreamble);
  ASSERT_FALSE(t.error) << t.error->message;
  EXPECT_EQ(t.events, std::vector<PreambleEvent>{found()});
  EXPECT_EQ(t.noise, motd);
}

TEST(Preamble, SplitAtEveryByte) {
  std::string motd = "motd line\nwe mention MUSTER-AGENT mid-line: MUSTER-AGENT 1 other\n";
  std::string frames = encode(AgentMessage{Heartbeat{1, 2}});
  std::string all = motd + kPreamble + frames;
  for (size_t cut = 0; cut <= all.size(); ++cut) {
    Transcript t = scan(all, {cut});
    ASSERT_FALSE(t.error) << cut << ": " << t.error->message;
    ASSERT_EQ(t.events.size(), 1u) << cut;
    const auto& f = std::get<PreambleFound>(t.events[0]);
    EXPECT_EQ(f.protocol, kProtocolVersion);
    EXPECT_EQ(f.rest, frames) << cut;
    EXPECT_EQ(t.noise, motd);
  }
}

TEST(Preamble, ByteByByte) {
  std::string all = "a\nbb\n" + kPreamble;
  Transcript t = scan(all, std::vector<size_t>(all.size(), 1));
  ASSERT_FALSE(t.error);
  EXPECT_EQ(t.events, std::vector<PreambleEvent>{found()});
  EXPECT_EQ(t.noise, "a\nbb\n");
}

TEST(Preamble, FrameBytesInTheSameFeedGoToTheFrameReader) {
  std::string frames = encode(AgentMessage{Hello{}}) + encode(AgentMessage{Output{1, Stream::out, "x\n"}});
  Transcript t = scan("noise\n" + kPreamble + frames);
  ASSERT_EQ(t.events.size(), 1u);
  FrameReader reader;
  reader.feed(std::get<PreambleFound>(t.events[0]).rest);
  std::vector<AgentMessage> messages;
  while (true) {
    auto frame = reader.next();
    ASSERT_TRUE(frame.has_value());
    if (!frame->has_value()) break;
    auto message = decode_agent((*frame)->type, (*frame)->payload);
    ASSERT_TRUE(message.has_value() && message->has_value());
    messages.push_back(**message);
  }
  EXPECT_EQ(messages, (std::vector<AgentMessage>{Hello{}, Output{1, Stream::out, "x\n"}}));
}

TEST(Preamble, PreambleAfterNoiseWithoutNewline) {
  Transcript t = scan("rc file says hi" + kPreamble + "\x05");
  ASSERT_FALSE(t.error) << t.error->message;
  EXPECT_EQ(t.events, std::vector<PreambleEvent>{found("\x05")});
  EXPECT_EQ(t.noise, "rc file says hi");
}

TEST(Preamble, MidLineWithoutTheNonceIsJustNoise) {
  std::string noise = "echo MUSTER-AGENT 1 guessed\nxMUSTER-AGENT 1\nMUSTER-AGENTS rock\n";
  Transcript t = scan(noise + kPreamble);
  ASSERT_FALSE(t.error) << t.error->message;
  EXPECT_EQ(t.events, std::vector<PreambleEvent>{found()});
  EXPECT_EQ(t.noise, noise);
}

TEST(Preamble, WrongNonceIsAnError) {
  Transcript t = scan("motd\nMUSTER-AGENT 1 0000000000000000\n" + kPreamble);
  ASSERT_TRUE(t.error);
  EXPECT_EQ(t.error->kind, ErrorKind::protocol);
  EXPECT_NE(t.error->message.find("wrong nonce"), std::string::npos) << t.error->message;
  EXPECT_TRUE(t.events.empty());
}

TEST(Preamble, MalformedPreambleIsAnError) {
  for (const std::string& line : std::vector<std::string>{
           "MUSTER-AGENT", "MUSTER-AGENT 1", "MUSTER-AGENT x " + kNonce, "MUSTER-AGENT -1 " + kNonce,
           "MUSTER-AGENT +1 " + kNonce, "MUSTER-AGENT 4294967296 " + kNonce, "MUSTER-AGENT  1 " + kNonce,
           "MUSTER-AGENT 1 " + kNonce + " extra", "MUSTER-AGENT 1 " + kNonce + " ",
           "MUSTER-AGENT 1.0 " + kNonce, "MUSTER-AGENT "s}) {
    Transcript t = scan(line + "\n");
    ASSERT_TRUE(t.error) << line;
    EXPECT_EQ(t.error->kind, ErrorKind::protocol);
  }
}

TEST(Preamble, CarriageReturnGetsAHint) {
  Transcript t = scan("MUSTER-AGENT 1 " + kNonce + "\r\n");
  ASSERT_TRUE(t.error);
  EXPECT_NE(t.error->message.find("terminal"), std::string::npos) << t.error->message;
}

TEST(Preamble, OtherVersionIsReportedNotJudged) {
  Transcript t = scan("MUSTER-AGENT 2 " + kNonce + "\n");
  ASSERT_FALSE(t.error);
  EXPECT_EQ(t.events, std::vector<PreambleEvent>{found("", 2)});
}

TEST(Preamble, UploadThenPreamble) {
  std::string upload = "MUSTER-UPLOAD 0123456789abcdef 73400320\n";
  for (size_t cut = 0; cut <= 60; ++cut) {
    Transcript t = scan("motd\n" + upload + "more noise\n" + kPreamble + "rest", {cut});
    ASSERT_FALSE(t.error) << t.error->message;
    ASSERT_EQ(t.events.size(), 2u);
    EXPECT_EQ(t.events[0], PreambleEvent(UploadRequest{"0123456789abcdef", 73400320}));
    EXPECT_EQ(t.events[1], found("rest"));
    EXPECT_EQ(t.noise, "motd\nmore noise\n");
  }
}

TEST(Preamble, UploadAloneWaitsForMore) {
  PreambleScanner scanner(kNonce);
  scanner.feed("MUSTER-UPLOAD ff 5\n");
  auto first = scanner.next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(*first, PreambleEvent(UploadRequest{"ff", 5}));
  auto second = scanner.next();
  ASSERT_TRUE(second.has_value());
  EXPECT_TRUE(std::holds_alternative<PreambleNeedMore>(*second));
  scanner.feed(kPreamble);
  auto third = scanner.next();
  ASSERT_TRUE(third.has_value());
  EXPECT_EQ(*third, found());
  EXPECT_EQ(scanner.noise(), "");
}

TEST(Preamble, MalformedUploadIsAnError) {
  for (const std::string& line :
       std::vector<std::string>{"MUSTER-UPLOAD", "MUSTER-UPLOAD abc", "MUSTER-UPLOAD xyz 10",
                                "MUSTER-UPLOAD abc -1", "MUSTER-UPLOAD abc 10 extra",
                                "MUSTER-UPLOAD abc 99999999999999999999", "MUSTER-UPLOAD abc 10\r"}) {
    Transcript t = scan(line + "\n" + kPreamble);
    ASSERT_TRUE(t.error) << line;
    EXPECT_NE(t.error->message.find("upload"), std::string::npos) << t.error->message;
  }
}

TEST(Preamble, TooMuchNoiseIsAnError) {
  std::string line(1023, 'n');
  line += '\n';
  std::string noise;
  while (noise.size() < kMaxNoise) noise += line;
  // Exactly kMaxNoise bytes of noise is still fine.
  ASSERT_EQ(noise.size(), kMaxNoise);
  Transcript ok = scan(noise + kPreamble, {4096, 4096});
  ASSERT_FALSE(ok.error) << ok.error->message;
  EXPECT_EQ(ok.noise.size(), kMaxNoise);
  // One more line is not.
  Transcript t = scan(noise + line + kPreamble, {4096, 4096});
  ASSERT_TRUE(t.error);
  EXPECT_NE(t.error->message.find("no agent preamble"), std::string::npos) << t.error->message;
}

TEST(Preamble, EndlessLineIsAnError) {
  PreambleScanner scanner(kNonce);
  std::string chunk(65536, 'y');
  Result<PreambleEvent> event = PreambleEvent{};
  int fed = 0;
  for (; fed < 64 && event; ++fed) {
    scanner.feed(chunk);
    event = scanner.next();
  }
  ASSERT_FALSE(event.has_value());
  EXPECT_LE(fed, 18);  // within 1 MiB + a line's slack
  scanner.feed(kPreamble);
  EXPECT_FALSE(scanner.next().has_value());  // sticky
}

// Whatever the bytes, how they are split must not change what the scanner reports.
TEST(Preamble, SplitsNeverChangeTheOutcome) {
  const std::vector<std::string> pieces = {
      "motd\n", "\n", "x",    "MUSTER-", "AGENT ", "UPLOAD ", "1 ",
      "ab ",    "12", kNonce, " ",       "\r",     "\0"s,     "\n" + kPreamble};
  std::mt19937 rng(99);
  for (int round = 0; round < 2000; ++round) {
    std::string input;
    int count = std::uniform_int_distribution<int>(1, 12)(rng);
    for (int i = 0; i < count; ++i) input += pieces[rng() % pieces.size()];
    Transcript whole = scan(input);
    std::vector<size_t> splits;
    for (size_t total = 0; total < input.size();) {
      splits.push_back(std::uniform_int_distribution<size_t>(0, 5)(rng));
      total += splits.back();
    }
    Transcript split = scan(input, splits);
    ASSERT_EQ(whole.error.has_value(), split.error.has_value()) << input;
    if (!whole.error) {
      ASSERT_EQ(whole.events, split.events) << input;
    }
    if (!whole.error) {
      ASSERT_EQ(whole.noise, split.noise) << input;
    }
  }
}

}  // namespace
}  // namespace muster::protocol
