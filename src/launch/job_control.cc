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

JobControl::~JobControl() { (void)pool_.unwatch_fd(server_.listen_fd()); }

void JobControl::watch(int client) {
  uint32_t events = posix::poll_readable | (server_.wants_write(client) ? posix::poll_writable : 0);
  (void)pool_.unwatch_fd(client);
  (void)pool_.watch_fd(client, events, (kClientKind << 32) | static_cast<uint32_t>(client));
}

void JobControl::on_event(uint64_t token) {
  if (token == kListenToken) {
    for (int client : server_.on_listen_readable()) watch(client);
    return;
  }
  int client = static_cast<int>(token & 0xFFFFFFFFu);
  (void)pool_.unwatch_fd(client);
  if (server_.on_client_ready(client)) watch(client);
}

void JobControl::reply(int client, const nlohmann::json& body) {
  server_.reply(client, body);
  watch(client);
}

void JobControl::finish(int exit_code) {
  record_.ended_unix_ms = unix_ms();
  record_.exit_code = exit_code;
  (void)head::write_job_record(record_);
}

}  // namespace muster::launch
