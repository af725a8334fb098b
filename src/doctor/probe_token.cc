#include "doctor/probe_token.h"

#include <algorithm>
#include <cstdlib>

#include "posix/clock.h"
#include "posix/tcp_stream.h"
#include "util/random.h"

namespace muster::doctor {
namespace {

constexpr std::string_view kHello = "MUSTER-PROBE ";
constexpr std::string_view kAnswer = "MUSTER-PROBE-OK\n";

// Reads exactly `want` bytes (or fewer on EOF, an error or the deadline).
std::string read_exactly(int fd, size_t want, int64_t deadline_ms) {
  std::string got(want, '\0');
  size_t have = 0;
  while (have < want) {
    auto n = posix::read_until(fd, std::span<char>(got.data() + have, want - have), deadline_ms);
    if (!n || *n == 0) break;
    have += *n;
  }
  got.resize(have);
  return got;
}

}  // namespace

std::string probe_hello_line(std::string_view token) { return std::string(kHello) + std::string(token) + "\n"; }

std::string new_probe_token() { return random_hex(32); }

std::string probe_token_from_environment() {
  const char* token = std::getenv(kProbeTokenEnv);
  return token != nullptr ? std::string(token) : std::string();
}

Result<void> present_probe_token(int fd, std::string_view token, int64_t deadline_ms) {
  std::string line = probe_hello_line(token);
  if (auto sent = posix::write_until(fd, line, deadline_ms); !sent) return sent.error();
  if (read_exactly(fd, kAnswer.size(), deadline_ms) != kAnswer) {
    return make_error(ErrorKind::protocol, "what answers on this port is not muster's listener of this run");
  }
  return {};
}

bool accept_probe_token(int fd, std::string_view token, int64_t deadline_ms) {
  std::string line = probe_hello_line(token);
  int64_t until = std::min(deadline_ms, posix::monotonic_ms() + kTokenWaitMs);
  if (token.empty() || read_exactly(fd, line.size(), until) != line) return false;
  return static_cast<bool>(posix::write_until(fd, kAnswer, until));
}

}  // namespace muster::doctor
