#include "posix/unix_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace muster::posix {
namespace {

Result<sockaddr_un> address_of(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return make_error(ErrorKind::usage, "socket path '{}' is longer than {} bytes", path, sizeof(address.sun_path) - 1);
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

}  // namespace

size_t max_unix_socket_path() { return sizeof(sockaddr_un::sun_path) - 1; }

Result<Fd> listen_unix(const std::string& path) {
  auto address = address_of(path);
  if (!address) return address.error();
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return make_error(ErrorKind::io, "{} exists and is not a socket", path);
    ::unlink(path.c_str());
  }
  Fd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!sock.valid()) return make_error(ErrorKind::io, "cannot create a unix socket: {}", std::strerror(errno));
  mode_t old_mask = ::umask(0177);  // the socket file is created 0600
  int bound = ::bind(sock.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof(*address));
  int bind_errno = errno;
  ::umask(old_mask);
  if (bound != 0) return make_error(ErrorKind::io, "cannot bind {}: {}", path, std::strerror(bind_errno));
  if (::listen(sock.get(), 16) != 0) return make_error(ErrorKind::io, "cannot listen on {}: {}", path, std::strerror(errno));
  return sock;
}

Result<Fd> accept_unix(int listener) {
  int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED) return Fd();
    return make_error(ErrorKind::io, "cannot accept a control connection: {}", std::strerror(errno));
  }
  Fd connection(fd);
  ucred peer{};
  socklen_t length = sizeof(peer);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.uid != ::geteuid()) {
    return make_error(ErrorKind::usage, "refused a control connection from uid {} (only uid {} may connect)",
                      peer.uid, ::geteuid());
  }
  return connection;
}

Result<Fd> connect_unix(const std::string& path) {
  auto address = address_of(path);
  if (!address) return address.error();
  Fd sock(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) return make_error(ErrorKind::io, "cannot create a unix socket: {}", std::strerror(errno));
  if (::connect(sock.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) != 0) {
    return make_error(ErrorKind::unreachable, "cannot connect to {}: {}", path, std::strerror(errno));
  }
  if (auto set = set_nonblocking(sock.get()); !set) return set.error();
  return sock;
}

bool peer_is_same_user(int sock) {
  ucred peer{};
  socklen_t length = sizeof(peer);
  return ::getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0 && peer.uid == ::geteuid();
}

Result<void> send_fd(int sock, int fd) {
  char byte = 0;
  iovec data{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(header), &fd, sizeof(int));
  for (;;) {
    ssize_t sent = ::sendmsg(sock, &message, MSG_NOSIGNAL);
    if (sent == 1) return {};
    if (sent < 0 && errno == EINTR) continue;
    return make_error(ErrorKind::io, "cannot pass a descriptor over a unix socket: {}",
                      sent < 0 ? std::strerror(errno) : "short write");
  }
}

}  // namespace muster::posix
