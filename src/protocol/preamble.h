// The bootstrap lines that precede the frame stream on the agent's stdout (docs/agent-protocol.md,
// sections 1 and 2):
//
//     MUSTER-UPLOAD <build-id> <size>\n      the bootstrap script asks the head for the muster binary
//     MUSTER-AGENT <protocol-version> <nonce>\n   the agent is running; frames follow
//
// PreambleScanner is the head's side. It is passive: the owner feeds it whatever the transport read, in
// any split, and calls next() until it returns PreambleNeedMore. Everything before the preamble that is
// not an upload request is shell noise (motd, rc-file output): kept for diagnostics, never interpreted.
//
// Recognition, strictest first:
// - a line whose first word is MUSTER-AGENT must be exactly the preamble with this connection's nonce;
//   anything else there (wrong nonce, malformed version, extra fields) is an error, never noise;
// - a line whose first word is MUSTER-UPLOAD must be a well-formed upload request, else an error;
// - a line that merely ends in `MUSTER-AGENT <digits> <nonce>` is the preamble after noise that lacked a
//   trailing newline (a shell rc file that printf'd without one); the nonce makes this safe to accept.
//   Mid-line text that does not carry this connection's nonce is just noise.
// More than kMaxNoise bytes of noise is an error, so a peer that never sends a preamble cannot make the
// head buffer without bound. Results never depend on how the bytes were split across feed() calls.
//
// The scanner does not judge the protocol version (the head decides what it speaks) and does not check
// the build-id (the head compares it with its own).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "util/result.h"

namespace muster::protocol {

inline constexpr size_t kMaxNoise = 1u << 20;

struct PreambleNeedMore {
  bool operator==(const PreambleNeedMore&) const = default;
};
struct UploadRequest {
  std::string build_id;  // hex, as the script printed it
  uint64_t size = 0;     // bytes the script will read from stdin
  bool operator==(const UploadRequest&) const = default;
};
struct PreambleFound {
  uint32_t protocol = 0;
  std::string rest;  // bytes after the preamble line: the start of the frame stream
  bool operator==(const PreambleFound&) const = default;
};
using PreambleEvent = std::variant<PreambleNeedMore, UploadRequest, PreambleFound>;

// The agent's side: "MUSTER-AGENT <kProtocolVersion> <nonce>\n". A nonce is a word of 1 to 256 bytes without
// whitespace (asserted here and by the scanner).
std::string preamble_line(std::string_view nonce);

class PreambleScanner {
 public:
  explicit PreambleScanner(std::string nonce);

  // Must not be called once next() has returned PreambleFound (the rest belongs to a FrameReader);
  // ignored after an error.
  void feed(std::string_view bytes);

  // The next event: PreambleNeedMore (feed more), UploadRequest (answer it, then keep scanning),
  // PreambleFound (done), or a protocol error (sticky: every later call returns it).
  Result<PreambleEvent> next();

  // The shell noise so far, including an unterminated last line; upload request lines are left out.
  std::string_view noise() const { return buffer_; }

 private:
  Result<PreambleEvent> on_line(size_t line_end);
  Result<PreambleEvent> on_preamble_line(std::string_view line, size_t line_end);
  Result<PreambleEvent> on_upload_line(std::string_view line, size_t line_end);
  Result<PreambleEvent> found(uint32_t protocol, size_t noise_end, size_t line_end);
  Error too_much_noise() const;
  Error fail(Error error);

  std::string nonce_;
  std::string buffer_;     // noise lines [0, line_start_), then bytes not yet taken apart into lines
  size_t line_start_ = 0;  // start of the current line
  size_t scanned_ = 0;     // [line_start_, scanned_) is known to hold no newline
  bool found_ = false;
  std::optional<Error> error_;
};

}  // namespace muster::protocol
