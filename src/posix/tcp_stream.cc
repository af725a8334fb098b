#include "posix/tcp_stream.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "posix/clock.h"
#include "posix/socket.h"

namespace muster::posix {
namespace {

// Waits for `events` on fd until the deadline: true when ready, false on timeout.
bool wait_for(int fd, short events, int64_t deadline_ms) {
  for (;;) {
    pollfd ready{fd, events, 0};
    int n = ::poll(&ready, 1, timeout_until(deadline_ms));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return true;  // let the read/write report the error
  }
}

// One non-blocking connect attempt, waited for until the deadline; returns the errno (0: connected).
int try_connect(const Fd& sock, const sockaddr_in& addr, int64_t deadline_ms) {
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  if (!wait_for(sock.get(), POLLOUT, deadline_ms)) return ETIMEDOUT;
  int error = 0;
  socklen_t length = sizeof(error);
  ::getsockopt(sock.get(), SOL_SOCKET, SO_ERROR, &error, &length);
  return error;
}

}  // namespace

Result<int> local_port(int fd) {
  sockaddr_in addr{};
  socklen_t length = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    return make_error(ErrorKind::io, "cannot read a socket's port: {}", std::strerror(errno));
  }
  return static_cast<int>(ntohs(addr.sin_port));
}

Result<Fd> accept_tcp_stream(int listener, int timeout_ms) {
  int64_t deadline = monotonic_ms() + timeout_ms;
  for (;;) {
    if (!wait_for(listener, POLLIN, deadline)) {
      return make_error(ErrorKind::timeout, "no connection within {} ms", timeout_ms);
    }
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) return Fd(fd);
    if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN) {
      return make_error(ErrorKind::io, "accept failed: {}", std::strerror(errno));
    }
  }
}

Result<Fd> connect_tcp_stream(const std::string& host, int port, int timeout_ms) {
  auto addr = resolve_ipv4(host, port);
  if (!addr) return addr.error();
  int64_t deadline = monotonic_ms() + timeout_ms;
  int error = ETIMEDOUT;
  while (monotonic_ms() < deadline) {
    Fd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!sock.valid()) return make_error(ErrorKind::io, "cannot create a TCP socket: {}", std::strerror(errno));
    error = try_connect(sock, *addr, deadline);
    if (error == 0) {
      int one = 1;
      ::setsockopt(sock.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      return sock;
    }
    if (error != ECONNREFUSED) break;
    ::poll(nullptr, 0, 50);  // the listener may not be up yet
  }
  return make_error(ErrorKind::unreachable, "cannot connect to {}:{}: {}", host, port, std::strerror(error));
}

Result<size_t> read_until(int fd, std::span<char> buffer, int64_t deadline_ms) {
  for (;;) {
    if (!wait_for(fd, POLLIN, deadline_ms)) return make_error(ErrorKind::timeout, "the peer went silent");
    ssize_t n = ::recv(fd, buffer.data(), buffer.size(), MSG_DONTWAIT);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return make_error(ErrorKind::io, "receive failed: {}", std::strerror(errno));
    }
  }
}

Result<void> write_until(int fd, std::string_view data, int64_t deadline_ms) {
  while (!data.empty()) {
    if (!wait_for(fd, POLLOUT, deadline_ms)) return make_error(ErrorKind::timeout, "the peer stopped reading");
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) {
      data.remove_prefix(static_cast<size_t>(n));
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return make_error(ErrorKind::io, "send failed: {}", std::strerror(errno));
    }
  }
  return {};
}

void shutdown_write(int fd) { ::shutdown(fd, SHUT_WR); }

}  // namespace muster::posix
