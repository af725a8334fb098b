#include "protocol/frame_reader.h"

#include <utility>

#include "protocol/messages.h"
#include "protocol/wire.h"

namespace muster::protocol {

namespace {
constexpr size_t kCompactAbove = 64u << 10;  // move the unread tail to the front only past this much
}

void FrameReader::feed(std::string_view bytes) {
  if (error_) return;
  // Dropping consumed bytes costs a move of the unread tail; doing it only once they are both many and at
  // least half the buffer keeps the cost amortized O(1) per byte.
  if (start_ == buffer_.size()) {
    buffer_.clear();
    start_ = 0;
  } else if (start_ >= kCompactAbove && start_ >= buffer_.size() / 2) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  buffer_.append(bytes);
}

Result<std::optional<Frame>> FrameReader::next() {
  auto view = next_view();
  if (!view) return view.error();
  if (!*view) return std::optional<Frame>();
  return std::optional<Frame>(Frame{(*view)->type, std::string((*view)->payload)});
}

Result<std::optional<FrameReader::FrameView>> FrameReader::next_view() {
  if (error_) return *error_;
  std::string_view unread = std::string_view(buffer_).substr(start_);
  if (unread.size() < 4) return std::optional<FrameView>();
  WireReader header(unread);
  uint32_t length = header.u32("length");
  if (length == 0 || length > kMaxFrame) {
    error_ = make_error(ErrorKind::protocol, "frame length {} at stream offset {} is outside 1..{}", length,
                        consumed_, kMaxFrame);
    return *error_;
  }
  if (unread.size() - 4 < length) return std::optional<FrameView>();
  FrameView frame{static_cast<uint8_t>(unread[4]), unread.substr(5, length - 1)};
  start_ += 4 + size_t{length};
  consumed_ += 4 + uint64_t{length};
  return std::optional<FrameView>(frame);
}

}  // namespace muster::protocol
