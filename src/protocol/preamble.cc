#include "protocol/preamble.h"

#include <array>
#include <cassert>
#include <charconv>
#include <utility>

#include <fmt/format.h>

#include "protocol/messages.h"

namespace muster::protocol {

namespace {

constexpr std::string_view kAgentWord = "MUSTER-AGENT";
constexpr std::string_view kUploadWord = "MUSTER-UPLOAD";
constexpr size_t kMaxNonce = 256;
constexpr size_t kMaxLine = 4096;  // longer than any valid MUSTER line (the nonce is at most kMaxNonce)

[[maybe_unused]] bool is_nonce(std::string_view s) {
  return !s.empty() && s.size() <= kMaxNonce && s.find_first_of(" \t\r\n") == std::string_view::npos;
}

// Printable ASCII as is, everything else as \xNN, cut at 120 bytes: safe to put in an error message.
std::string quoted(std::string_view bytes) {
  constexpr size_t kMax = 120;
  std::string out = "'";
  for (unsigned char c : bytes.substr(0, kMax)) {
    if (c >= 0x20 && c < 0x7F && c != '\\' && c != '\'') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  out += bytes.size() > kMax ? "'..." : "'";
  return out;
}

// The three space-separated fields of a MUSTER line, or nullopt if there are not exactly three.
std::optional<std::array<std::string_view, 3>> split3(std::string_view line) {
  size_t first = line.find(' ');
  if (first == std::string_view::npos) return std::nullopt;
  size_t second = line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  return std::array<std::string_view, 3>{line.substr(0, first), line.substr(first + 1, second - first - 1),
                                         line.substr(second + 1)};
}

std::string_view first_word(std::string_view line) {
  return line.substr(0, line.find(' '));
}

template <typename T>
std::optional<T> parse_decimal(std::string_view s) {
  T value = 0;
  if (s.empty() || s.size() > 20 || s.front() < '0' || s.front() > '9') return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

bool is_hex(std::string_view s) {
  return !s.empty() && s.size() <= 64 &&
         s.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
}

std::string carriage_return_hint(std::string_view line) {
  return !line.empty() && line.back() == '\r'
             ? " (the line ends in a carriage return: is the transport allocating a terminal?)"
             : "";
}

}  // namespace

std::string preamble_line(std::string_view nonce) {
  assert(is_nonce(nonce));
  return fmt::format("{} {} {}\n", kAgentWord, kProtocolVersion, nonce);
}

PreambleScanner::PreambleScanner(std::string nonce) : nonce_(std::move(nonce)) {
  assert(is_nonce(nonce_));
}

void PreambleScanner::feed(std::string_view bytes) {
  assert(!found_ && "the bytes after the preamble belong to a FrameReader");
  if (error_ || found_) return;
  buffer_.append(bytes);
}

Result<PreambleEvent> PreambleScanner::next() {
  if (error_) return *error_;
  assert(!found_);
  while (true) {
    size_t newline = buffer_.find('\n', scanned_);
    if (newline == std::string::npos) {
      scanned_ = buffer_.size();
      // The unterminated line may still end in a preamble, so it gets a line's worth of slack.
      if (buffer_.size() > kMaxNoise + kMaxLine) return fail(too_much_noise());
      return PreambleEvent{PreambleNeedMore{}};
    }
    Result<PreambleEvent> event = on_line(newline);
    if (!event || !std::holds_alternative<PreambleNeedMore>(*event)) return event;
  }
}

// Looks at the complete line [line_start_, line_end); returns an event, an error, or PreambleNeedMore
// meaning "noise, keep going".
Result<PreambleEvent> PreambleScanner::on_line(size_t line_end) {
  std::string_view line = std::string_view(buffer_).substr(line_start_, line_end - line_start_);
  std::string_view word = first_word(line);
  if (word == kAgentWord) return on_preamble_line(line, line_end);
  if (word == kUploadWord) return on_upload_line(line, line_end);
  // The preamble after noise that lacked a newline: accepted only with this connection's nonce.
  size_t at = line.rfind(kAgentWord);
  if (at != std::string_view::npos) {
    auto fields = split3(line.substr(at));
    if (fields && (*fields)[0] == kAgentWord && (*fields)[2] == nonce_) {
      if (auto protocol = parse_decimal<uint32_t>((*fields)[1])) {
        return found(*protocol, line_start_ + at, line_end);
      }
    }
  }
  line_start_ = scanned_ = line_end + 1;
  if (line_start_ > kMaxNoise) return fail(too_much_noise());
  return PreambleEvent{PreambleNeedMore{}};
}

Result<PreambleEvent> PreambleScanner::on_preamble_line(std::string_view line, size_t line_end) {
  auto fields = split3(line);
  std::optional<uint32_t> protocol = fields ? parse_decimal<uint32_t>((*fields)[1]) : std::nullopt;
  if (!protocol) {
    return fail(make_error(ErrorKind::protocol,
                           "malformed agent preamble {}: expected '{} <version> <nonce>'{}", quoted(line),
                           kAgentWord, carriage_return_hint(line)));
  }
  if ((*fields)[2] != nonce_) {
    return fail(make_error(ErrorKind::protocol,
                           "agent preamble {} carries the wrong nonce (expected {}){}: output of another "
                           "connection, or a stale agent?",
                           quoted(line), quoted(nonce_), carriage_return_hint(line)));
  }
  return found(*protocol, line_start_, line_end);
}

Result<PreambleEvent> PreambleScanner::on_upload_line(std::string_view line, size_t line_end) {
  auto fields = split3(line);
  std::optional<uint64_t> size = fields ? parse_decimal<uint64_t>((*fields)[2]) : std::nullopt;
  if (!size || !is_hex((*fields)[1])) {
    return fail(make_error(ErrorKind::protocol,
                           "malformed upload request {}: expected '{} <build-id> <size>'{}", quoted(line),
                           kUploadWord, carriage_return_hint(line)));
  }
  UploadRequest request{std::string((*fields)[1]), *size};
  buffer_.erase(line_start_, line_end + 1 - line_start_);  // not noise
  scanned_ = line_start_;
  return PreambleEvent{std::move(request)};
}

Result<PreambleEvent> PreambleScanner::found(uint32_t protocol, size_t noise_end, size_t line_end) {
  if (noise_end > kMaxNoise) return fail(too_much_noise());
  PreambleFound event{protocol, buffer_.substr(line_end + 1)};
  buffer_.resize(noise_end);
  found_ = true;
  return PreambleEvent{std::move(event)};
}

Error PreambleScanner::too_much_noise() const {
  return make_error(ErrorKind::protocol, "no agent preamble in the first {} bytes of output (it ends {})",
                    kMaxNoise, quoted(std::string_view(buffer_).substr(buffer_.size() - 120)));
}

Error PreambleScanner::fail(Error error) {
  error_ = error;
  return error;
}

}  // namespace muster::protocol
