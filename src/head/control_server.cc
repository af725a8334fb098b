#include "head/control_server.h"

#include <fmt/format.h>

#include "posix/clock.h"
#include "posix/file.h"
#include "posix/poller.h"
#include "posix/unix_socket.h"

namespace muster::head {
namespace {

constexpr size_t kMaxRequestBytes = 64 * 1024;

}  // namespace

Result<ControlServer> ControlServer::open(const std::string& path) {
  auto listener = posix::listen_unix(path);
  if (!listener) return listener.error();
  return ControlServer(path, std::move(*listener));
}

ControlServer::~ControlServer() {
  if (listener_.valid()) posix::remove_file(path_);
}

std::vector<int> ControlServer::on_listen_readable() {
  std::vector<int> accepted;
  for (int round = 0; round < 16; ++round) {
    auto client = posix::accept_unix(listener_.get());
    if (!client) continue;  // a stranger: refused and closed
    if (!client->valid()) break;
    int fd = client->get();
    clients_[fd].fd = std::move(*client);
    accepted.push_back(fd);
  }
  return accepted;
}

bool ControlServer::on_client_ready(int fd) {
  auto it = clients_.find(fd);
  if (it == clients_.end()) return false;
  Client& client = it->second;
  if (client.closing) {
    if (flush(client)) return true;
    clients_.erase(it);
    return false;
  }
  char buffer[8192];
  for (int round = 0; round < 8; ++round) {
    auto got = posix::read_some(fd, buffer);
    if (!got || got->eof) {
      clients_.erase(it);
      return false;
    }
    if (got->would_block) break;
    client.in.append(buffer, got->bytes);
    if (client.in.size() > kMaxRequestBytes) {
      clients_.erase(it);
      return false;
    }
  }
  for (size_t newline = client.in.find('\n'); newline != std::string::npos; newline = client.in.find('\n')) {
    auto body = nlohmann::json::parse(client.in.substr(0, newline), nullptr, false);
    client.in.erase(0, newline + 1);
    if (body.is_discarded() || !body.is_object()) {
      reply(fd, {{"ok", false}, {"error", "not a JSON object"}});
      continue;
    }
    requests_.push_back({fd, std::move(body)});
  }
  if (flush(client)) return true;
  clients_.erase(fd);
  return false;
}

bool ControlServer::wants_write(int fd) const {
  auto it = clients_.find(fd);
  return it != clients_.end() && !it->second.out.empty();
}

std::vector<ControlRequest> ControlServer::take_requests() { return std::exchange(requests_, {}); }

void ControlServer::reply(int fd, const nlohmann::json& body) {
  reply_line(fd, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void ControlServer::reply_line(int fd, std::string_view line) {
  auto it = clients_.find(fd);
  if (it == clients_.end() || it->second.closing) return;
  it->second.out.append(line);
  if (!flush(it->second)) clients_.erase(it);
}

void ControlServer::close_client(int fd) { clients_.erase(fd); }

bool ControlServer::closing(int fd) const {
  auto it = clients_.find(fd);
  return it != clients_.end() && it->second.closing;
}

size_t ControlServer::pending_bytes(int fd) const {
  auto it = clients_.find(fd);
  return it == clients_.end() ? 0 : it->second.out.size();
}

void ControlServer::close_when_flushed(int fd) {
  auto it = clients_.find(fd);
  if (it == clients_.end()) return;
  it->second.closing = true;
  if (!flush(it->second)) clients_.erase(it);
}

void ControlServer::discard_unsent(int fd) {
  auto it = clients_.find(fd);
  if (it == clients_.end()) return;
  ByteQueue& out = it->second.out;
  // Lines are queued whole, so the queue starts mid-line only where a write stopped: keep up to that newline.
  size_t newline = out.pending().find('\n');
  std::string keep(out.pending().substr(0, newline == std::string_view::npos ? 0 : newline + 1));
  out.consumed(out.size());
  out.append(keep);
}

bool ControlServer::flush(Client& client) {
  while (!client.out.empty()) {
    auto written = posix::write_some(client.fd.get(), client.out.pending());
    if (!written) return false;
    if (written->would_block) return true;
    client.out.consumed(written->bytes);
  }
  return !client.closing;
}

Result<posix::Fd> connect_to_head(const std::string& socket) {
  auto fd = posix::connect_unix(socket);
  if (!fd) return fd.error();
  if (!posix::peer_is_same_user(fd->get())) {
    return make_error(ErrorKind::remote, "{} is served by another user's process: not the job's head", socket);
  }
  return fd;
}

Result<nlohmann::json> control_request(const std::string& socket, const nlohmann::json& request, int timeout_ms) {
  auto fd = connect_to_head(socket);
  if (!fd) return fd.error();
  auto poller = posix::Poller::create();
  if (!poller) return poller.error();
  std::string out = request.dump() + "\n", in;
  int64_t deadline = posix::monotonic_ms() + timeout_ms;
  (void)poller->add(fd->get(), posix::poll_readable | posix::poll_writable, 0);
  while (true) {
    int64_t left = deadline - posix::monotonic_ms();
    if (left <= 0) return make_error(ErrorKind::timeout, "no answer from the job within {} s", timeout_ms / 1000);
    auto events = poller->wait(static_cast<int>(left));
    if (!events) return events.error();
    if (!out.empty()) {
      auto written = posix::write_some(fd->get(), out);
      if (!written) return make_error(ErrorKind::unreachable, "the job closed its control socket");
      out.erase(0, written->bytes);
      if (out.empty()) (void)poller->modify(fd->get(), posix::poll_readable, 0);
    }
    char buffer[65536];
    auto got = posix::read_some(fd->get(), buffer);
    if (!got) return got.error();
    if (got->eof) return make_error(ErrorKind::unreachable, "the job closed its control socket before answering");
    if (got->would_block) continue;
    in.append(buffer, got->bytes);
    if (size_t newline = in.find('\n'); newline != std::string::npos) {
      auto body = nlohmann::json::parse(in.substr(0, newline), nullptr, false);
      if (body.is_discarded()) return make_error(ErrorKind::protocol, "the job's answer is not JSON");
      return body;
    }
  }
}

}  // namespace muster::head
