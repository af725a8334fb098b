// The running job as other commands of this user see it: its record in the job registry (head/job_registry.h:
// written when the job starts and when it ends) and its control socket (head/control_server.h), served by the
// launcher's loop. Requests: {"op": "stack"} (every rank's stack, answered when collected), {"op": "status"}.
// Passive: the launcher forwards the pool's watched-fd events with tokens of kinds kControl* to on_event().
#pragma once

#include <memory>
#include <optional>
#include <string>
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
  void reply(int client, const nlohmann::json& body);
  // The job ended: the record says so (so `muster ps` shows it as ended, with its exit code).
  void finish(int exit_code);
  const head::JobRecord& record() const { return record_; }

 private:
  JobControl(head::JobRecord record, head::ControlServer server, head::AgentPool& pool)
      : record_(std::move(record)), server_(std::move(server)), pool_(pool) {}
  void watch(int client);

  head::JobRecord record_;
  head::ControlServer server_;
  head::AgentPool& pool_;
  std::vector<int> watched_writable_;
};

}  // namespace muster::launch
