// Encoding and decoding of agent-protocol messages (docs/agent-protocol.md, sections 3 and 4).
//
// Pure functions over bytes: no I/O, no state. encode() produces a complete frame (u32 length, u8 type,
// payload) ready to be written to the peer; decode_*() turn the type and payload of a frame that
// FrameReader cut out of the stream back into a message. A decoder knows only its own direction: a type
// that is not a message of that direction (unknown, reserved, or the other direction's) decodes to
// nullopt, which the caller skips, as the spec requires of unknown types. A payload that is too short or
// holds an out-of-range enum value is a protocol error; bytes after the last known field are ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/messages.h"
#include "util/result.h"

namespace muster::protocol {

// The caller keeps a message within kMaxFrame (the agent chunks Output at kMaxOutputChunk; the head must
// check a SpawnWorker's argv/env size before sending it); encode asserts it.
std::string encode(const AgentMessage& message);
std::string encode(const HeadMessage& message);

Result<std::optional<AgentMessage>> decode_agent(uint8_t type, std::string_view payload);
Result<std::optional<HeadMessage>> decode_head(uint8_t type, std::string_view payload);

// A whole encoded frame (as encode() returns it) carried inside another message (Relay, Relayed): the length
// field must match the bytes exactly.
Result<std::optional<AgentMessage>> decode_agent_frame(std::string_view frame);
Result<std::optional<HeadMessage>> decode_head_frame(std::string_view frame);

// A Relay passed on without copying its inner frame (often a 256 KiB SyncData): its fields as views into the
// payload, and the bytes that, followed by `frame_size` bytes of a frame, are exactly encode(Relay{hops, frame}).
struct RelayView {
  std::string_view hops, frame;
};
Result<RelayView> decode_relay(std::string_view payload);  // the payload of a Type::relay frame
std::string encode_relay_header(std::string_view hops, size_t frame_size);

// A SyncData without a copy of its bytes: the header that, followed by `bytes` bytes, is exactly
// encode(SyncData{session, file, codec, raw_size, those bytes}) (the head sends file data behind it), and a decoded
// SyncData whose bytes are a view into the payload (a node writes them to the file from there).
std::string encode_sync_data_header(uint32_t session, uint32_t file, SyncCodec codec, uint32_t raw_size,
                                    size_t bytes);
struct SyncDataView {
  uint32_t session = 0;
  uint32_t file = 0;
  SyncCodec codec = SyncCodec::raw;
  uint32_t raw_size = 0;
  std::string_view bytes;
};
Result<SyncDataView> decode_sync_data(std::string_view payload);  // the payload of a Type::sync_data frame

// The bytes of an Output frame before its `bytes` field's content (frame length, type, worker, stream, byte count):
// kOutputHeaderSize of them, written to `out`. The agent reads worker output in place behind it (no copy).
inline constexpr size_t kOutputHeaderSize = 4 + 1 + 4 + 1 + 4;
void encode_output_header(uint32_t worker, Stream stream, size_t bytes, char* out);

// The wire type byte of a message, and its name for diagnostics ("Hello", "SpawnWorker", ...).
Type type_of(const AgentMessage& message);
Type type_of(const HeadMessage& message);
const char* type_name(Type type);  // "unknown" for a value outside the enum

}  // namespace muster::protocol
