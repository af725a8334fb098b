#include "doctor/port_check.h"

#include <fmt/core.h>

#include "doctor/probe_token.h"
#include "posix/clock.h"
#include "posix/socket.h"
#include "posix/tcp_stream.h"

namespace muster::doctor {
namespace {

constexpr int kMaxStrays = 64;  // connections without the token the listener puts up with

// Counts the connections that present the run's token; strays are closed and not counted.
int count_peers(int listener, const PortCheck& check, int64_t deadline) {
  int peers = 0, strays = 0;
  while (peers < check.expect && strays <= kMaxStrays) {
    auto connection = posix::accept_tcp_stream(listener, posix::timeout_until(deadline));
    if (!connection) break;
    if (accept_probe_token(connection->get(), check.token, deadline)) ++peers;
    else ++strays;
  }
  return peers;
}

}  // namespace

std::string run_port_check(const PortCheck& check) {
  int64_t deadline = posix::monotonic_ms() + check.seconds * 1000;
  if (check.listen_port > 0) {
    auto listener = posix::listen_tcp(check.listen_port);
    if (!listener) return fmt::format("in-use {}\n", listener.error().message);
    return fmt::format("accepted {}\n", count_peers(listener->get(), check, deadline));
  }
  auto connection = posix::connect_tcp_stream(check.connect_host, check.connect_port, check.seconds * 1000);
  if (!connection) return fmt::format("unreachable {}\n", connection.error().message);
  auto ours = present_probe_token(connection->get(), check.token, deadline);
  return ours ? "reached\n" : fmt::format("unreachable {}\n", ours.error().message);
}

}  // namespace muster::doctor
