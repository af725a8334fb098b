// Cuts the byte stream of one direction of the agent protocol into frames (docs/agent-protocol.md,
// section 3).
//
// FrameReader is passive: the owner of the fd feeds it whatever bytes a read returned, in any split, then
// calls next() until it says it needs more. It does no I/O and does not look inside payloads (that is
// codec.h). A length of 0 or above kMaxFrame is an error as soon as the four length bytes are in, without
// waiting for (or buffering) the body; after an error the stream is out of sync, so every later next()
// returns the same error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/byte_queue.h"
#include "util/result.h"

namespace muster::protocol {

struct Frame {
  uint8_t type = 0;
  std::string payload;
  bool operator==(const Frame&) const = default;
};

class FrameReader {
 public:
  void feed(std::string_view bytes);
  // The same, read in place: up to `n` bytes go into the span (from a read(2)), then commit() says how many came.
  // Saves the copy feed() makes of every byte.
  std::span<char> reserve(size_t n);
  void commit(size_t n);

  // The next complete frame, nullopt if more bytes are needed, or a protocol error.
  Result<std::optional<Frame>> next();
  // The same without copying the payload: the view is valid until the next feed() or reserve().
  struct FrameView {
    uint8_t type = 0;
    std::string_view payload;
  };
  Result<std::optional<FrameView>> next_view();

  // Bytes fed but not yet returned in a frame (a non-zero value at EOF means a truncated frame).
  size_t buffered() const { return queue_.size() - start_; }

 private:
  void settle();  // drops the bytes of the frames returned since the last feed() or reserve()

  ByteQueue queue_;
  size_t start_ = 0;       // queued bytes before this were already returned in frames
  uint64_t consumed_ = 0;  // stream offset of buffer_[start_], for error messages
  std::optional<Error> error_;
};

}  // namespace muster::protocol
