// TelemetryHub: the launch's side of telemetry (docs/design/telemetry.md). It starts every node's sampling (one
// TelemetryStart per node and attempt, sent just before that node's first SpawnWorker, asking for step timing),
// takes every Telemetry frame into the job's bounded store (telemetry/store.h) and live view, and once a second:
// judges stragglers (telemetry/detector.h) and names each one with its likely cause in the live log, head.log
// and the attach clients (LaunchOutput notices) and in the manifest; puts steps/s and the slowest rank on the
// terminal's status line; turns the job machine's attempts, exclusions, stalls and failures into the store's
// events; writes the Prometheus textfile when asked; saves the store (<run dir>/telemetry.zst) every minute.
// At the end it writes <run dir>/report.html. It decides nothing about the job: the job machine does.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launch/first_step.h"
#include "launch/job_machine.h"
#include "launch/launch_options.h"
#include "launch/launch_output.h"
#include "telemetry/detector.h"
#include "telemetry/live_view.h"
#include "telemetry/store.h"

namespace muster::launch {

class TelemetryHub {
 public:
  TelemetryHub(const LaunchOptions& options, std::string job_id, std::string run_dir, AgentLink& agents,
               LaunchOutput& output, const JobMachine& machine);

  // Just before `spawn` goes to host `node`: the node's TelemetryStart first (once per attempt), step timing asked.
  void prepare_spawn(size_t node, protocol::SpawnWorker& spawn);
  void on_message(size_t node, const protocol::AgentMessage& message, int64_t now_ms);
  void tick(int64_t now_ms);  // once per loop round; works once a second
  // Whether attempt `attempt`'s ranks reached their first step (unknown with telemetry off).
  FirstStep first_step(int attempt) const { return first_steps_.of(attempt); }

  // `muster top`'s snapshot: every node, the ranks of `expand` (or of all).
  nlohmann::json top(bool all_ranks, const std::set<std::string>& expand, int64_t now_ms) const;
  // The job ended: the store saved, report.html written; returns the manifest's "telemetry" part.
  nlohmann::json finish(int exit_code, int64_t now_ms);

 private:
  void second(int64_t now_ms);
  void follow_machine(int64_t now_ms);
  void judge(int64_t now_ms);
  void name(uint32_t rank, const telemetry::StragglerDetector::Standing& standing, int64_t now_ms);
  void unname(uint32_t rank, const telemetry::StragglerDetector::Standing& standing, int64_t now_ms);
  void event(int64_t mono_ms, std::string kind, std::string text, int rank = -1, std::string node = "");
  int64_t unix_of(int64_t mono_ms) const { return mono_ms + unix_offset_ms_; }
  void save();
  void export_textfile(int64_t now_ms);
  std::string status_line() const;

  TelemetryOptions options_;
  bool per_node_;  // a worker per node (a launcher): its ranks are the launcher's, not the plan's
  std::string job_id_, run_dir_;
  AgentLink& agents_;
  LaunchOutput& output_;
  const JobMachine& machine_;
  int64_t unix_offset_ms_;
  telemetry::Store store_;
  telemetry::LiveView live_;
  telemetry::StragglerDetector detector_;
  FirstStepWatch first_steps_;
  std::map<uint32_t, telemetry::StragglerNote> stragglers_;
  nlohmann::json named_ = nlohmann::json::array();  // every straggler named, for the manifest and the report
  std::set<std::pair<size_t, int>> started_;         // (node, attempt) sent TelemetryStart
  int64_t next_second_ms_ = 0, next_save_ms_ = 0, next_export_ms_ = 0;
  // What of the machine's story is already in the store's events.
  size_t attempts_seen_ = 0;
  std::set<int> ended_seen_, stalls_seen_;
  std::set<std::string> exclusions_seen_;
  int attempt_ = -1;
  std::string last_status_;
  bool save_error_shown_ = false;
};

}  // namespace muster::launch
