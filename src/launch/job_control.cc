#include "launch/job_control.h"

#include <algorithm>
#include <chrono>


namespace muster::launch {
namespace {

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<std::unique_ptr<JobControl>> JobControl::open(head::JobRecord record, posix::EventLoop& loop) {
  auto socket = head::new_socket_path();
  if (!socket) return socket.error();
  auto server = head::ControlServer::open(*socket);
  if (!server) return server.error();
  record.socket = *socket;
  record.started_unix_ms = unix_ms();
  if (auto written = head::write_job_record(record); !written) return written.error();
  std::unique_ptr<JobControl> control(new JobControl(std::move(record), std::move(*server), loop));
  JobControl* self = control.get();
  auto watched = loop.watch(control->server_.listen_fd(), posix::poll_readable, [self](uint32_t) {
    for (int client : self->server_.on_listen_readable()) self->update(client);
  });
  if (!watched) return watched.error();
  control->listen_ = std::move(*watched);
  return control;
}

void JobControl::update(int client) {
  auto it = watched_.find(client);
  if (!server_.has(client)) {
    if (it != watched_.end()) {
      it->second.forget();  // the server closed the fd already: epoll forgot it with it
      watched_.erase(it);
      closed_.push_back(client);
    }
    return;
  }
  // A closing client is not read any more (unread input would keep it readable forever): writable only.
  uint32_t events = server_.closing(client) ? posix::poll_writable
                                            : posix::poll_readable | (server_.wants_write(client) ? posix::poll_writable : 0);
  if (it != watched_.end()) {
    (void)it->second.set_events(events);
    return;
  }
  auto watch = loop_.watch(client, events, [this, client](uint32_t) {
    (void)server_.on_client_ready(client);
    update(client);
    if (on_request_) on_request_();
  });
  if (watch) watched_.emplace(client, std::move(*watch));
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

void JobControl::rewrite_record(const std::function<void(head::JobRecord&)>& change) {
  change(record_);
  (void)head::write_job_record(record_);
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
