#include "protocol/codec.h"

#include <cassert>
#include <cstring>
#include <type_traits>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "protocol/wire.h"

namespace muster::protocol {

namespace {

// Runs a message's field list (messages.h) to append its payload.
class Encoder {
 public:
  explicit Encoder(WireWriter& w) : w_(w) {}
  void operator()(const uint8_t& v, const char*) { w_.u8(v); }
  void operator()(const bool& v, const char*) { w_.u8(v ? 1 : 0); }
  void operator()(const uint32_t& v, const char*) { w_.u32(v); }
  void operator()(const int32_t& v, const char*) { w_.i32(v); }
  void operator()(const uint64_t& v, const char*) { w_.u64(v); }
  void operator()(const int64_t& v, const char*) { w_.i64(v); }
  void operator()(const std::string& v, const char*) { w_.str(v); }
  void operator()(const std::vector<std::string>& v, const char*) { w_.str_list(v); }
  void operator()(const std::vector<uint32_t>& v, const char*) { w_.u32_list(v); }
  template <typename E>
  void operator()(const E& v, const char*, Range) {
    w_.u8(static_cast<uint8_t>(v));
  }
  void check(bool, const char*) {}

 private:
  WireWriter& w_;
};

// Runs the same list to read a payload; a failed read leaves the reader failed and the result is discarded.
class Decoder {
 public:
  explicit Decoder(WireReader& r) : r_(r) {}
  void operator()(uint8_t& v, const char* name) { v = r_.u8(name); }
  void operator()(bool& v, const char* name) {
    uint8_t raw = r_.u8(name);
    if (r_.ok() && raw > 1) r_.fail(fmt::format("{} {} is neither 0 nor 1", name, raw));
    v = raw == 1;
  }
  void operator()(uint32_t& v, const char* name) { v = r_.u32(name); }
  void operator()(int32_t& v, const char* name) { v = r_.i32(name); }
  void operator()(uint64_t& v, const char* name) { v = r_.u64(name); }
  void operator()(int64_t& v, const char* name) { v = r_.i64(name); }
  void operator()(std::string& v, const char* name) { v = r_.str(name); }
  void operator()(std::vector<std::string>& v, const char* name) { v = r_.str_list(name); }
  void operator()(std::vector<uint32_t>& v, const char* name) { v = r_.u32_list(name); }
  template <typename E>
  void operator()(E& v, const char* name, Range range) {
    uint8_t raw = r_.u8(name);
    if (r_.ok() && (raw < range.min || raw > range.max)) {
      r_.fail(fmt::format("{} {} is not in {}..{}", name, raw, range.min, range.max));
    }
    v = static_cast<E>(raw);
  }
  void check(bool holds, const char* why) {
    if (r_.ok() && !holds) r_.fail(why);
  }

 private:
  WireReader& r_;
};

template <typename Message>
std::string encode_frame(const Message& message) {
  std::string frame(4, '\0');  // length, patched below
  WireWriter w(frame);
  w.u8(static_cast<uint8_t>(Message::kType));
  Encoder encoder(w);
  Message::fields(message, encoder);
  size_t length = frame.size() - 4;
  assert(length <= kMaxFrame && "message too large for one frame");
  std::string header;
  WireWriter(header).u32(static_cast<uint32_t>(length));
  frame.replace(0, 4, header);
  return frame;
}

template <typename Message, typename Variant>
Result<std::optional<Variant>> decode_as(std::string_view payload) {
  WireReader r(payload);
  Message message;
  Decoder decoder(r);
  Message::fields(message, decoder);
  if (!r.ok()) {
    return make_error(ErrorKind::protocol, "malformed {} frame (type {}, {} byte payload): {}", Message::kName,
                      static_cast<int>(Message::kType), payload.size(), r.failure());
  }
  return std::optional<Variant>(std::move(message));
}

// The message of `Variant` whose wire type is `type`, decoded; nullopt when no alternative has that type.
template <typename Variant, size_t I = 0>
Result<std::optional<Variant>> decode_variant(uint8_t type, std::string_view payload) {
  if constexpr (I == std::variant_size_v<Variant>) {
    return std::optional<Variant>();
  } else {
    using Message = std::variant_alternative_t<I, Variant>;
    if (type == static_cast<uint8_t>(Message::kType)) return decode_as<Message, Variant>(payload);
    return decode_variant<Variant, I + 1>(type, payload);
  }
}

// The name of the alternative of `Variant` with wire type `type`, or nullptr.
template <typename Variant, size_t I = 0>
const char* name_in(Type type) {
  if constexpr (I == std::variant_size_v<Variant>) {
    return nullptr;
  } else {
    using Message = std::variant_alternative_t<I, Variant>;
    return Message::kType == type ? Message::kName : name_in<Variant, I + 1>(type);
  }
}

}  // namespace

std::string encode(const AgentMessage& message) {
  return std::visit([](const auto& m) { return encode_frame(m); }, message);
}

std::string encode(const HeadMessage& message) {
  return std::visit([](const auto& m) { return encode_frame(m); }, message);
}

Result<std::optional<AgentMessage>> decode_agent(uint8_t type, std::string_view payload) {
  return decode_variant<AgentMessage>(type, payload);
}

Result<std::optional<HeadMessage>> decode_head(uint8_t type, std::string_view payload) {
  return decode_variant<HeadMessage>(type, payload);
}

namespace {

// Checks the framing of a nested frame; on success `type` and `payload` are its parts.
Result<void> split_frame(std::string_view frame, uint8_t& type, std::string_view& payload) {
  if (frame.size() < 5) return make_error(ErrorKind::protocol, "nested frame of {} bytes is too short", frame.size());
  WireReader r(frame.substr(0, 4));
  uint32_t length = r.u32("length");
  if (length != frame.size() - 4) {
    return make_error(ErrorKind::protocol, "nested frame says {} bytes but holds {}", length, frame.size() - 4);
  }
  type = static_cast<uint8_t>(frame[4]);
  payload = frame.substr(5);
  return {};
}

}  // namespace

Result<std::optional<AgentMessage>> decode_agent_frame(std::string_view frame) {
  uint8_t type = 0;
  std::string_view payload;
  if (auto split = split_frame(frame, type, payload); !split) return split.error();
  return decode_agent(type, payload);
}

Result<RelayView> decode_relay(std::string_view payload) {
  WireReader r(payload);
  RelayView view;
  view.hops = r.str_view("hops");
  view.frame = r.str_view("frame");
  if (!r.ok()) {
    return make_error(ErrorKind::protocol, "malformed Relay frame (type {}, {} byte payload): {}",
                      static_cast<int>(Type::relay), payload.size(), r.failure());
  }
  return view;
}

std::string encode_relay_header(std::string_view hops, size_t frame_size) {
  size_t length = 1 + 4 + hops.size() + 4 + frame_size;
  assert(length <= kMaxFrame && "message too large for one frame");
  std::string header;
  WireWriter w(header);
  w.u32(static_cast<uint32_t>(length));
  w.u8(static_cast<uint8_t>(Type::relay));
  w.str(hops);
  w.u32(static_cast<uint32_t>(frame_size));
  return header;
}

std::string encode_sync_data_header(uint32_t session, uint32_t file, SyncCodec codec, uint32_t raw_size,
                                    size_t bytes) {
  size_t length = 1 + 4 + 4 + 1 + 4 + 4 + bytes;
  assert(length <= kMaxFrame && "message too large for one frame");
  std::string header;
  WireWriter w(header);
  w.u32(static_cast<uint32_t>(length));
  w.u8(static_cast<uint8_t>(Type::sync_data));
  w.u32(session);
  w.u32(file);
  w.u8(static_cast<uint8_t>(codec));
  w.u32(raw_size);
  w.u32(static_cast<uint32_t>(bytes));
  return header;
}

Result<SyncDataView> decode_sync_data(std::string_view payload) {
  WireReader r(payload);
  SyncDataView view;
  view.session = r.u32("session");
  view.file = r.u32("file");
  uint8_t codec = r.u8("codec");
  if (r.ok() && codec > 2) r.fail(fmt::format("codec {} is not in 0..2", codec));
  view.codec = static_cast<SyncCodec>(codec);
  view.raw_size = r.u32("raw_size");
  view.bytes = r.str_view("bytes");
  if (!r.ok()) {
    return make_error(ErrorKind::protocol, "malformed SyncData frame (type {}, {} byte payload): {}",
                      static_cast<int>(Type::sync_data), payload.size(), r.failure());
  }
  return view;
}

void encode_output_header(uint32_t worker, Stream stream, size_t bytes, char* out) {
  assert(bytes <= kMaxOutputChunk && "output chunk too large");
  std::string header;
  WireWriter w(header);
  w.u32(static_cast<uint32_t>(kOutputHeaderSize - 4 + bytes));
  w.u8(static_cast<uint8_t>(Type::output));
  w.u32(worker);
  w.u8(static_cast<uint8_t>(stream));
  w.u32(static_cast<uint32_t>(bytes));
  assert(header.size() == kOutputHeaderSize);
  std::memcpy(out, header.data(), kOutputHeaderSize);
}

Result<std::optional<HeadMessage>> decode_head_frame(std::string_view frame) {
  uint8_t type = 0;
  std::string_view payload;
  if (auto split = split_frame(frame, type, payload); !split) return split.error();
  return decode_head(type, payload);
}

Type type_of(const AgentMessage& message) {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kType; }, message);
}

Type type_of(const HeadMessage& message) {
  return std::visit([](const auto& m) { return std::decay_t<decltype(m)>::kType; }, message);
}

const char* type_name(Type type) {
  if (const char* name = name_in<AgentMessage>(type)) return name;
  if (const char* name = name_in<HeadMessage>(type)) return name;
  return "unknown";
}

}  // namespace muster::protocol
