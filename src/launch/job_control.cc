#include "launch/job_control.h"

#include <algorithm>
#include <chrono>

#include "posix/poller.h"

namespace muster::launch {
namespace {

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<std::unique_ptr<JobControl>> JobControl::open(head::JobRecord record, head::AgentPool& pool) {
  auto socket = head::new_socket_path();
  if (!socket) return socket.error();
  auto server = head::ControlServer::open(*socket);
  if (!server) return server.error();
  record.socket = *socket;
  record.started_unix_ms = unix_ms();
  if (auto written = head::write_job_record(record); !written) return written.error();
  std::unique_ptr<JobControl> control(new JobControl(std::move(record), std::move(*server), pool));
  if (auto watched = pool.watch_fd(control->server_.listen_fd(), posix::poll_readable, kListenToken); !watched) {
    return watched.error();
  }
  return control;
}

JobControl::~JobControl() {
  for (const auto& [client, events] : watched_) (void)pool_.unwatch_fd(client);
  (void)pool_.unwatch_fd(server_.listen_fd());
}

void JobControl::update(int client) {
  auto it = watched_.find(client);
  if (!server_.has(client)) {
    if (it != watched_.end()) {
      // The server closed the fd already; epoll forgot it with its last descriptor (we hold no duplicate).
      (void)pool_.unwatch_fd(client);
      watched_.erase(it);
      closed_.push_back(client);
    }
    return;
  }
  // A closing client is not read any more (unread input would keep it readable forever): writable only.
  uint32_t events = server_.closing(client) ? posix::poll_writable
                                            : posix::poll_readable | (server_.wants_write(client) ? posix::poll_writable : 0);
  uint64_t token = (kClientKind << 32) | static_cast<uint32_t>(client);
  if (paused_) {
    watched_[client] = 0;  // registered on resume()
    return;
  }
  if (it == watched_.end()) {
    (void)pool_.watch_fd(client, events, token);
    watched_[client] = events;
  } else if (it->second != events) {
    (void)pool_.rewatch_fd(client, events, token);
    it->second = events;
  }
}

void JobControl::on_event(uint64_t token) {
  if (token == kListenToken) {
    for (int client : server_.on_listen_readable()) update(client);
    return;
  }
  int client = static_cast<int>(token & 0xFFFFFFFFu);
  (void)server_.on_client_ready(client);
  update(client);
}

void JobControl::reply(int client, const nlohmann::json& body) {
  server_.reply(client, body);
  update(client);
}

void JobControl::send_line(int client, std::string_view line) {
  server_.reply_line(client, line);
  update(client);
}

void JobControl::close_when_flushed(int client) {
  server_.close_when_flushed(client);
  update(client);
}

void JobControl::pause() {
  if (paused_) return;
  paused_ = true;
  for (auto& [client, events] : watched_) (void)pool_.unwatch_fd(client);
  (void)pool_.unwatch_fd(server_.listen_fd());
}

void JobControl::resume() {
  if (!paused_) return;
  paused_ = false;
  (void)pool_.watch_fd(server_.listen_fd(), posix::poll_readable, kListenToken);
  auto clients = std::exchange(watched_, {});
  for (const auto& [client, events] : clients) {
    if (server_.has(client)) update(client);  // registers it afresh
    else closed_.push_back(client);
  }
}

bool JobControl::has_pending_output() const {
  return std::any_of(watched_.begin(), watched_.end(),
                     [&](const auto& entry) { return server_.pending_bytes(entry.first) > 0; });
}

void JobControl::finish(int exit_code) {
  record_.ended_unix_ms = unix_ms();
  record_.exit_code = exit_code;
  (void)head::write_job_record(record_);
}

void JobControl::finish_unstarted(const std::string& error) {
  record_.error = error;
  finish(-1);
}

}  // namespace muster::launch
