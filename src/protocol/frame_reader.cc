#include "protocol/frame_reader.h"

#include <utility>

#include "protocol/messages.h"
#include "protocol/wire.h"

namespace muster::protocol {

void FrameReader::settle() {
  if (start_ == 0) return;
  queue_.consumed(start_);  // compacts now and then (amortised O(1) per byte): earlier views end here
  start_ = 0;
}

void FrameReader::feed(std::string_view bytes) {
  if (error_) return;
  settle();
  queue_.append(bytes);
}

std::span<char> FrameReader::reserve(size_t n) {
  settle();
  return queue_.reserve_back(n);
}

void FrameReader::commit(size_t n) {
  if (!error_) queue_.commit_back(n);
}

Result<std::optional<Frame>> FrameReader::next() {
  auto view = next_view();
  if (!view) return view.error();
  if (!*view) return std::optional<Frame>();
  return std::optional<Frame>(Frame{(*view)->type, std::string((*view)->payload)});
}

Result<std::optional<FrameReader::FrameView>> FrameReader::next_view() {
  if (error_) return *error_;
  std::string_view unread = queue_.pending().substr(start_);
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
