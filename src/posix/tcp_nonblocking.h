// TCP for an event loop (the direct data path of `muster sync`, sync/data_inbound.h and data_outbound.h): a
// listener, accepts and connects that never wait, and sendfile. Every call returns at once; readiness is the
// caller's EventLoop's business. Every socket is non-blocking, close-on-exec and TCP_NODELAY (whole records are
// written at once; the last small one of a sync must not wait for an ACK).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "posix/fd.h"
#include "util/result.h"

namespace muster::posix {

// A listening socket on every address of this machine, IPv6 and IPv4 (one dual-stack [::] socket; 0.0.0.0 where
// IPv6 is off), on a port the kernel picks.
Result<Fd> listen_tcp_any_port();
// The port a bound socket (IPv4 or IPv6) got.
Result<int> bound_port(int fd);

// One waiting connection, or nullopt when none is (EAGAIN). `peer` (may be null) gets the peer's numeric address.
Result<std::optional<Fd>> accept_nonblocking(int listener, std::string* peer);

// Starts a connect to a numeric IPv4 or IPv6 address (never a name lookup: that could block the loop). The socket
// becomes writable once the connect is done; connect_outcome() then says how it went.
Result<Fd> start_tcp_connect(const std::string& address, int port);
// The outcome of a connect started above, once its socket is writable: ok, or why not ("Connection refused").
Result<void> connect_outcome(int fd);

// sendfile(2): up to `length` bytes of `file` from `offset` (the file's own offset is left alone) into `socket`.
// bytes == 0 without would_block: the file has no byte at `offset` (it shrank).
Result<IoResult> send_file(int socket, int file, uint64_t offset, size_t length);

}  // namespace muster::posix
