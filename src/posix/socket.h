// Small facts about this host's network identity and TCP ports, for choosing MASTER_PORT and for doctor.
// These functions only probe: they never keep a socket open, listen, or connect anywhere.
#pragma once

#include <string>

#include "posix/fd.h"
#include "util/result.h"

#include <netinet/in.h>

namespace muster::posix {

// A TCP port that was free on `bind_address` a moment ago (numeric address or host name; "" means every
// address): binds port 0, reads back what the kernel chose, closes. Someone else may take the port before
// the caller uses it; callers must treat "address in use" later as a reason to pick again.
Result<int> pick_free_tcp_port(const std::string& bind_address);

// Whether binding 0.0.0.0:port fails with "address in use" right now. Uses SO_REUSEADDR like
// torch's TCPStore, so a port that only has connections in TIME_WAIT counts as free.
Result<bool> tcp_port_in_use(int port);

// This machine's host name (gethostname).
Result<std::string> hostname();

// A listening IPv4 TCP socket on 0.0.0.0:port (SO_REUSEADDR; port 0: the kernel picks one, see local_port in
// tcp_stream.h); fails (EADDRINUSE) when the port is taken.
Result<Fd> listen_tcp(int port);

// Whether `text` is exactly one numeric IPv4 or IPv6 address (inet_pton), nothing around it.
bool is_ip_address(const std::string& text);

// The IPv4 address of `host` (a name or a dotted quad) with `port`; ErrorKind::unreachable naming the host.
Result<sockaddr_in> resolve_ipv4(const std::string& host, int port);

}  // namespace muster::posix
