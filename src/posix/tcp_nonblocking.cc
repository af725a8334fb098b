#include "posix/tcp_nonblocking.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/sendfile.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace muster::posix {
namespace {

void set_nodelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

bool would_block(int error) { return error == EAGAIN || error == EWOULDBLOCK; }

Result<Fd> listen_on(int family) {
  Fd sock(::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!sock.valid()) return make_error(ErrorKind::io, "cannot create a TCP socket: {}", std::strerror(errno));
  int rc;
  if (family == AF_INET6) {
    int zero = 0;
    ::setsockopt(sock.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_addr = in6addr_any;
    rc = ::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  } else {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    rc = ::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  }
  if (rc != 0 || ::listen(sock.get(), 64) != 0) {
    return make_error(ErrorKind::io, "cannot listen on a TCP port: {}", std::strerror(errno));
  }
  return sock;
}

}  // namespace

Result<Fd> listen_tcp_any_port() {
  if (auto dual = listen_on(AF_INET6)) return dual;
  return listen_on(AF_INET);
}

Result<int> bound_port(int fd) {
  sockaddr_storage addr{};
  socklen_t length = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    return make_error(ErrorKind::io, "cannot read a socket's port: {}", std::strerror(errno));
  }
  if (addr.ss_family == AF_INET6) return static_cast<int>(ntohs(reinterpret_cast<const sockaddr_in6&>(addr).sin6_port));
  return static_cast<int>(ntohs(reinterpret_cast<const sockaddr_in&>(addr).sin_port));
}

Result<std::optional<Fd>> accept_nonblocking(int listener, std::string* peer) {
  for (;;) {
    sockaddr_storage addr{};
    socklen_t length = sizeof(addr);
    int fd = ::accept4(listener, reinterpret_cast<sockaddr*>(&addr), &length, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      set_nodelay(fd);
      if (peer) {
        char text[INET6_ADDRSTRLEN] = "";
        if (addr.ss_family == AF_INET6) {
          ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(addr).sin6_addr, text, sizeof(text));
        } else {
          ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(addr).sin_addr, text, sizeof(text));
        }
        *peer = text;
        if (peer->rfind("::ffff:", 0) == 0) peer->erase(0, 7);  // an IPv4 peer of a dual-stack socket
      }
      return std::optional<Fd>(Fd(fd));
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (would_block(errno)) return std::optional<Fd>();
    return make_error(ErrorKind::io, "accept failed: {}", std::strerror(errno));
  }
}

Result<Fd> start_tcp_connect(const std::string& address, int port) {
  sockaddr_storage addr{};
  socklen_t length = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (::inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    length = sizeof(sockaddr_in);
  } else if (::inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    length = sizeof(sockaddr_in6);
  } else {
    return make_error(ErrorKind::usage, "'{}' is not a numeric IP address", address);
  }
  Fd sock(::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!sock.valid()) return make_error(ErrorKind::io, "cannot create a TCP socket: {}", std::strerror(errno));
  set_nodelay(sock.get());
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&addr), length) != 0 && errno != EINPROGRESS) {
    return make_error(ErrorKind::unreachable, "{}", std::strerror(errno));
  }
  return sock;
}

Result<void> connect_outcome(int fd) {
  int error = 0;
  socklen_t length = sizeof(error);
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
  if (error != 0) return make_error(ErrorKind::unreachable, "{}", std::strerror(error));
  return {};
}

Result<IoResult> send_file(int socket, int file, uint64_t offset, size_t length) {
  for (;;) {
    off_t at = static_cast<off_t>(offset);
    ssize_t n = ::sendfile(socket, file, &at, length);
    if (n >= 0) return IoResult{.bytes = static_cast<size_t>(n)};
    if (errno == EINTR) continue;
    if (would_block(errno)) return IoResult{.would_block = true};
    return make_error(ErrorKind::io, "sendfile failed: {}", std::strerror(errno));
  }
}

}  // namespace muster::posix
