// libFuzzer target for the agent protocol (src/protocol): framing, both decoders, and the preamble scanner.
//
// Any input is a stream of agent-protocol bytes. Checked properties, any violation aborts:
// - nothing crashes, reads out of bounds or allocates without bound (the sanitizers and -rss_limit_mb);
// - a message that decodes re-encodes to a frame that decodes to an equal message, with identical bytes;
// - FrameReader and PreambleScanner report the same things whether the bytes come at once or in pieces;
// - the no-copy Relay path (decode_relay, encode_relay_header) agrees with the full decoder and encoder.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fuzz_check.h"
#include "protocol/codec.h"
#include "protocol/frame_reader.h"
#include "protocol/preamble.h"

namespace {

using muster::Result;
using namespace muster::protocol;

// Piece sizes for split feeding, derived from the input itself so a crash reproduces.
size_t piece_size(std::string_view input, size_t i) {
  return input.empty() ? 1 : static_cast<unsigned char>(input[i % input.size()]) % 13 + 1;
}

struct Frames {
  std::vector<Frame> frames;
  bool failed = false;
};

Frames read_frames(std::string_view input, bool split) {
  FrameReader reader;
  Frames out;
  size_t pos = 0;
  for (size_t i = 0; pos < input.size(); ++i) {
    size_t piece = split ? piece_size(input, i) : input.size();
    reader.feed(input.substr(pos, piece));
    pos += std::min(piece, input.size() - pos);
    while (true) {
      auto frame = reader.next();
      if (!frame) {
        out.failed = true;
        return out;
      }
      if (!frame->has_value()) break;
      out.frames.push_back(std::move(**frame));
    }
  }
  return out;
}

template <typename Message>
Result<std::optional<Message>> decode(uint8_t type, std::string_view payload);
template <>
Result<std::optional<AgentMessage>> decode(uint8_t type, std::string_view payload) {
  return decode_agent(type, payload);
}
template <>
Result<std::optional<HeadMessage>> decode(uint8_t type, std::string_view payload) {
  return decode_head(type, payload);
}

template <typename Message>
void check_round_trip(const Frame& frame) {
  auto decoded = decode<Message>(frame.type, frame.payload);
  if (!decoded || !decoded->has_value()) return;
  const Message& message = **decoded;
  std::string encoded = encode(message);
  FUZZ_CHECK(static_cast<uint8_t>(encoded[4]) == frame.type);
  Frames again = read_frames(encoded, false);
  FUZZ_CHECK(!again.failed && again.frames.size() == 1);
  auto redecoded = decode<Message>(again.frames[0].type, again.frames[0].payload);
  FUZZ_CHECK(redecoded && redecoded->has_value());
  FUZZ_CHECK(**redecoded == message);
  FUZZ_CHECK(encode(**redecoded) == encoded);
  // Trailing bytes aside, a decoded payload is a re-encoded one.
  FUZZ_CHECK(frame.payload.substr(0, encoded.size() - 5) == encoded.substr(5));
}

void check_relay_view(const Frame& frame) {
  if (frame.type != static_cast<uint8_t>(Type::relay)) return;
  auto view = decode_relay(frame.payload);
  auto full = decode_head(frame.type, frame.payload);
  FUZZ_CHECK(view.has_value() == (full.has_value() && full->has_value()));
  if (!view) return;
  const auto& relay = std::get<Relay>(**full);
  FUZZ_CHECK(view->hops == relay.hops && view->frame == relay.frame);
  FUZZ_CHECK(encode_relay_header(view->hops, view->frame.size()) + std::string(view->frame) ==
             encode(HeadMessage{relay}));
}

void check_frames(std::string_view input) {
  Frames whole = read_frames(input, false);
  Frames split = read_frames(input, true);
  FUZZ_CHECK(whole.failed == split.failed && whole.frames == split.frames);
  for (const Frame& frame : whole.frames) {
    check_round_trip<AgentMessage>(frame);
    check_round_trip<HeadMessage>(frame);
    check_relay_view(frame);
  }
}

struct Scan {
  std::vector<PreambleEvent> events;
  bool failed = false;
  std::string noise;
};

Scan scan(std::string_view input, bool split) {
  PreambleScanner scanner("n0nce");
  Scan out;
  size_t pos = 0;
  for (size_t i = 0; pos < input.size(); ++i) {
    size_t piece = split ? piece_size(input, i + 7) : input.size();
    scanner.feed(input.substr(pos, piece));
    pos += std::min(piece, input.size() - pos);
    while (true) {
      auto event = scanner.next();
      if (!event) {
        out.failed = true;
        return out;
      }
      if (std::holds_alternative<PreambleNeedMore>(*event)) break;
      out.events.push_back(std::move(*event));
      if (auto* found = std::get_if<PreambleFound>(&out.events.back())) {
        found->rest += input.substr(pos);  // what the caller would feed to its FrameReader
        out.noise = scanner.noise();
        return out;
      }
    }
  }
  out.noise = scanner.noise();
  return out;
}

void check_preamble(std::string_view input) {
  Scan whole = scan(input, false);
  Scan split = scan(input, true);
  FUZZ_CHECK(whole.failed == split.failed);
  if (whole.failed) return;
  FUZZ_CHECK(whole.events == split.events);
  FUZZ_CHECK(whole.noise == split.noise);
  if (!whole.events.empty()) {
    if (auto* found = std::get_if<PreambleFound>(&whole.events.back())) check_frames(found->rest);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  check_frames(input);
  check_preamble(input);
  return 0;
}
