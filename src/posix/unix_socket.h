// Unix-domain stream sockets for the head's control channel (head/control_server.h): a listener on a path that
// only this user can reach, connections that are refused unless the peer is this same user (SO_PEERCRED), and a
// client connect. Every descriptor is non-blocking and close-on-exec; the owner's loop waits for readiness.
#pragma once

#include <string>

#include "posix/fd.h"
#include "util/result.h"

namespace muster::posix {

// Longest path a socket address holds (sun_path, with its terminating NUL): 107 bytes on Linux.
size_t max_unix_socket_path();

// Binds and listens on `path` (an existing file there is replaced only if it is a socket), mode 0600.
Result<Fd> listen_unix(const std::string& path);

// One pending connection, or an invalid Fd when none is waiting. A peer that is not this process's user is
// closed at once and reported as an error.
Result<Fd> accept_unix(int listener);

// Connects to `path` (blocking connect, then non-blocking); ErrorKind::unreachable when nothing listens there.
Result<Fd> connect_unix(const std::string& path);

// Whether the process at the other end of a connected unix socket runs as this process's user (SO_PEERCRED).
bool peer_is_same_user(int sock);

// Passes `fd` over a connected unix socket: one data byte with the descriptor as SCM_RIGHTS (OpenSSH's
// mm_send_fd convention, which its ControlMaster expects: transport/ssh_master.h).
Result<void> send_fd(int sock, int fd);

}  // namespace muster::posix
