// The running job as other commands of this user see it: its record in the job registry (head/job_registry.h:
// written when the job starts and when it ends) and its control socket (head/control_server.h), served by the
// launcher's loop. Requests: {"op": "stack"} (every rank's stack, answered when collected), {"op": "status"},
// {"op": "attach"} (the live view: launch/attach_hub.h), {"op": "stop", "kill": bool}.
// (The requests as types: head/control_protocol.h; the handlers: launch/launch_control.h.)
// It registers the socket and its clients with the process's EventLoop itself; the launcher takes the requests
// that arrived (take_requests) and learns from take_closed() which clients went away, each loop round.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "posix/event_loop.h"
#include "head/control_server.h"
#include "head/job_registry.h"

namespace muster::launch {

class JobControl {
 public:
  // Records the job and opens its socket; a failure leaves the job without a control channel (the reason is
  // returned for a notice) but never stops it.
  static Result<std::unique_ptr<JobControl>> open(head::JobRecord record, posix::EventLoop& loop);

  std::vector<head::ControlRequest> take_requests() { return server_.take_requests(); }
  // Called from the loop when a request has arrived (the launcher serves them each round anyway; this is for
  // the moments it does not run its rounds: while the pool connects).
  void set_on_request(std::function<void()> callback) { on_request_ = std::move(callback); }
  // Clients that went away since the last call.
  std::vector<int> take_closed() { return std::exchange(closed_, {}); }
  void reply(int client, const nlohmann::json& body);
  void send_line(int client, std::string_view line);  // an encoded JSON line
  size_t pending_bytes(int client) const { return server_.pending_bytes(client); }
  bool alive(int client) const { return server_.has(client); }
  // Sends what is queued, then closes the client.
  void close_when_flushed(int client);
  void discard_unsent(int client) { server_.discard_unsent(client); }
  bool has_pending_output() const;  // some client still has bytes queued
  // The record changed (an attempt began, a node was excluded): written again, for `muster ps`.
  void rewrite_record(const std::function<void(head::JobRecord&)>& change);
  // The job ended: the record says so (so `muster ps` shows it as ended, with its exit code).
  void finish(int exit_code);
  // The job never started (an unreachable node, ...): the record says so, with the reason.
  void finish_unstarted(const std::string& error);
  const head::JobRecord& record() const { return record_; }

 private:
  JobControl(head::JobRecord record, head::ControlServer server, posix::EventLoop& loop)
      : record_(std::move(record)), server_(std::move(server)), loop_(loop) {}
  // Brings the client's registration in line with what the server wants of it (or forgets a client gone).
  void update(int client);

  head::JobRecord record_;
  head::ControlServer server_;
  posix::EventLoop& loop_;
  posix::EventLoop::FdWatch listen_;
  std::map<int, posix::EventLoop::FdWatch> watched_;  // client fd -> its registration
  std::vector<int> closed_;
  std::function<void()> on_request_;
};

}  // namespace muster::launch
