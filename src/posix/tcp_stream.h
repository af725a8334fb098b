// Connected TCP sockets with deadlines, for doctor's bandwidth test (`muster node bw`, doctor/bandwidth/probe.h):
// a listener that accepts one peer at a time, a connect that retries a listener that is not up yet, and
// blocking reads/writes that give up at a deadline. Unlike socket.h these keep the connection: the caller
// owns every returned Fd. Each call waits (poll) at most until its deadline: a connection is served by its own
// thread for a few seconds, not by an event loop.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "posix/fd.h"
#include "util/result.h"

namespace muster::posix {

// (The listening socket is socket.h's listen_tcp.)
// The port a bound socket got.
Result<int> local_port(int fd);
// One connection from `listener`, or a timeout error after `timeout_ms`.
Result<Fd> accept_tcp_stream(int listener, int timeout_ms);
// A connection to host:port (IPv4), retrying while refused, until `timeout_ms` passes. TCP_NODELAY is set, so
// small writes (the latency ping-pongs) leave at once.
Result<Fd> connect_tcp_stream(const std::string& host, int port, int timeout_ms);

// Reads at most buffer.size() bytes, waiting until `deadline_ms` (posix::monotonic_ms). Returns 0 at EOF; a
// timeout error when nothing arrived by the deadline.
Result<size_t> read_until(int fd, std::span<char> buffer, int64_t deadline_ms);
// Writes all of `data`, waiting until `deadline_ms`; a timeout error if the peer stopped reading.
Result<void> write_until(int fd, std::string_view data, int64_t deadline_ms);
// Half-close: the peer reads EOF after what was sent.
void shutdown_write(int fd);

}  // namespace muster::posix
