// The running job as other commands of this user see it: its record in the job registry (head/job_registry.h:
// written when the job starts and when it ends) and its control socket (head/control_server.h), served by the
// launcher's loop. Requests: {"op": "stack"} (every rank's stack, answered when collected), {"op": "status"},
// {"op": "attach"} (the live view: launch/attach_hub.h), {"op": "stop", "kill": bool}.
// Passive: the launcher forwards the pool's watched-fd events with tokens of kinds kControl* to on_event(), and
// learns from take_closed() which clients went away (so it forgets them before their fd number is reused).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "head/agent_pool.h"
#include "head/control_server.h"
#include "head/job_registry.h"

namespace muster::launch {

class JobControl {
 public:
  // Poller token kinds (bits 32+) the control channel uses in the pool's loop (the owner's kinds are >= 16).
  static constexpr uint64_t kListenToken = uint64_t{17} << 32;
  static constexpr uint64_t kClientKind = 18;

  // Records the job and opens its socket; a failure leaves the job without a control channel (the reason is
  // returned for a notice) but never stops it.
  static Result<std::unique_ptr<JobControl>> open(head::JobRecord record, head::AgentPool& pool);
  ~JobControl();

  bool owns(uint64_t token) const { return token == kListenToken || (token >> 32) == kClientKind; }
  void on_event(uint64_t token);
  std::vector<head::ControlRequest> take_requests() { return server_.take_requests(); }
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
  // While another loop runs on the pool (the failure report's probes, whose listener does not know these fds), the
  // socket and its clients are not watched (a readable fd nobody reads would make every wait return at once);
  // connections wait in the listen backlog and requests in the socket until resume().
  void pause();
  void resume();
  // The job ended: the record says so (so `muster ps` shows it as ended, with its exit code).
  void finish(int exit_code);
  // The job never started (an unreachable node, ...): the record says so, with the reason.
  void finish_unstarted(const std::string& error);
  const head::JobRecord& record() const { return record_; }

 private:
  JobControl(head::JobRecord record, head::ControlServer server, head::AgentPool& pool)
      : record_(std::move(record)), server_(std::move(server)), pool_(pool) {}
  // Brings the client's registration in line with what the server wants of it (or forgets a client gone).
  void update(int client);

  head::JobRecord record_;
  head::ControlServer server_;
  head::AgentPool& pool_;
  std::map<int, uint32_t> watched_;  // client fd -> the events it is registered for
  bool paused_ = false;
  std::vector<int> closed_;
};

}  // namespace muster::launch
