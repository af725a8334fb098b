#include "posix/socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>

#include "posix/fd.h"

namespace muster::posix {

namespace {

struct AddrinfoDeleter {
  void operator()(addrinfo* info) const { ::freeaddrinfo(info); }
};
using AddrinfoPtr = std::unique_ptr<addrinfo, AddrinfoDeleter>;

Result<AddrinfoPtr> resolve_passive(const std::string& address) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(address.empty() ? nullptr : address.c_str(), "0", &hints, &found);
  if (rc != 0) {
    return make_error(ErrorKind::io, "cannot resolve bind address '{}': {}", address, ::gai_strerror(rc));
  }
  return AddrinfoPtr(found);
}

// A TCP socket bound to 0.0.0.0:port with SO_REUSEADDR (as torch's TCPStore binds), or the bind's errno.
Result<Fd> bind_any_ipv4(int port, int& bind_errno) {
  bind_errno = 0;
  Fd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) return make_error(ErrorKind::io, "cannot create a TCP socket: {}", std::strerror(errno));
  int one = 1;
  ::setsockopt(sock.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) bind_errno = errno;
  return sock;
}

int port_of(const sockaddr_storage& addr) {
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(addr).sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in&>(addr).sin_port);
}

}  // namespace

Result<int> pick_free_tcp_port(const std::string& bind_address) {
  auto resolved = resolve_passive(bind_address);
  if (!resolved) return resolved.error();
  const addrinfo* info = resolved->get();
  Fd sock(::socket(info->ai_family, info->ai_socktype | SOCK_CLOEXEC, info->ai_protocol));
  if (!sock.valid()) return make_error(ErrorKind::io, "cannot create a TCP socket: {}", std::strerror(errno));
  if (::bind(sock.get(), info->ai_addr, info->ai_addrlen) != 0) {
    return make_error(ErrorKind::io, "cannot bind a TCP port on '{}': {}", bind_address,
                      std::strerror(errno));
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  if (::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
    return make_error(ErrorKind::io, "cannot read back the bound port: {}", std::strerror(errno));
  }
  return port_of(bound);
}

Result<bool> tcp_port_in_use(int port) {
  if (port < 1 || port > 65535) return make_error(ErrorKind::usage, "invalid TCP port {}", port);
  int bind_errno = 0;
  auto sock = bind_any_ipv4(port, bind_errno);
  if (!sock) return sock.error();
  if (bind_errno == 0) return false;
  if (bind_errno == EADDRINUSE) return true;
  return make_error(ErrorKind::io, "cannot probe TCP port {}: {}", port, std::strerror(bind_errno));
}

Result<std::string> hostname() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof(name)) != 0) {
    return make_error(ErrorKind::io, "cannot read the host name: {}", std::strerror(errno));
  }
  return std::string(name);
}

Result<Fd> listen_tcp(int port) {
  int bind_errno = 0;
  auto sock = bind_any_ipv4(port, bind_errno);
  if (!sock) return sock.error();
  if (bind_errno == 0 && ::listen(sock->get(), 64) != 0) bind_errno = errno;
  if (bind_errno != 0) {
    return make_error(ErrorKind::io, "cannot listen on TCP port {}: {}", port, std::strerror(bind_errno));
  }
  return sock;
}

bool is_ip_address(const std::string& text) {
  in6_addr buffer{};
  return ::inet_pton(AF_INET, text.c_str(), &buffer) == 1 || ::inet_pton(AF_INET6, text.c_str(), &buffer) == 1;
}

Result<sockaddr_in> resolve_ipv4(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    return make_error(ErrorKind::unreachable, "cannot resolve '{}': {}", host, ::gai_strerror(rc));
  }
  sockaddr_in addr{};
  std::memcpy(&addr, found->ai_addr, sizeof(addr));
  ::freeaddrinfo(found);
  return addr;
}

}  // namespace muster::posix
