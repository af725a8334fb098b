// What both ends of sync's direct data path agree on (docs/agent-protocol.md section 8a): the session's link
// parameters and the record format. After its handshake (data_handshake.h) a stream carries records, in one
// direction only (parent -> child):
//     u32 size (little-endian) | u64 sequence (little-endian) | size bytes (sealed) | tag (16 bytes; none in plaintext)
// A record holds whole agent-protocol frames, the same frames the ssh link would carry. Sequence numbers count the
// records of a hop across all of its streams, so the receiver hands them on in the sender's order whatever stream
// each took; the sequence is the AEAD's associated data. A record with sequence kEndSequence and no bytes ends a
// stream cleanly: a stream that closes without it was cut.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sync/data_crypto.h"

namespace muster::sync {

inline constexpr size_t kRecordHeader = 12;
inline constexpr uint64_t kEndSequence = ~uint64_t{0};
inline constexpr size_t kRecordTarget = 256u << 10;  // a record is sealed once it holds this much
inline constexpr size_t kMaxRecord = (16u << 20) + kRecordTarget + 64;  // a frame is at most 16 MiB (kMaxFrame)

struct DataLinkParams {
  uint32_t session = 0;
  DataCipher cipher = DataCipher::plain;
  uint32_t streams = 1;
  std::string secret;         // kSecretBytes, from the head over ssh
  int timeout_ms = 10'000;    // to connect and authenticate every stream
};

// The parameters as the head's SyncDataListen or SyncDataConnect give them (both carry the same fields).
template <typename Message>
DataLinkParams link_params_of(const Message& message) {
  DataLinkParams params;
  params.session = message.session;
  params.cipher = static_cast<DataCipher>(message.cipher);
  params.streams = message.streams;
  params.secret = message.secret;
  params.timeout_ms = static_cast<int>(message.timeout_ms);
  return params;
}

// Bytes that are not cleared when allocated (a record is sealed over them at once): a record being built, or
// one being read.
struct RawBytes {
  std::unique_ptr<char[]> data;
  size_t size = 0, capacity = 0;
  void allocate(size_t bytes) {
    data = std::make_unique_for_overwrite<char[]>(bytes);
    capacity = bytes;
    size = 0;
  }
  std::string_view view() const { return {data.get(), size}; }
};

void put_record_header(char* out, uint32_t size, uint64_t sequence);
uint32_t record_size(const char* header);
uint64_t record_sequence(const char* header);

}  // namespace muster::sync
