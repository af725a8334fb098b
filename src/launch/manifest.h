// manifest.json of a run directory: what ran where, with which environment (secrets redacted), which
// muster, how long each phase took and how every rank ended. Written once at the end of a launch; the
// recorder only collects (no I/O until write()).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cluster/rank_plan.h"
#include "diagnosis/stack_groups.h"
#include "launch/gang.h"
#include "protocol/messages.h"
#include "util/result.h"

namespace muster::launch {

struct LaunchOptions;

class ManifestRecorder {
 public:
  void begin(const LaunchOptions& options, const cluster::RankPlan& plan, const std::string& job_id,
             const std::string& transport);
  void node_connected(int node_rank, const protocol::Hello& hello);
  // `connections`: the head's own (the rest were started through the launch tree, `depth` levels deep);
  // `notes`: the pool's (a relay that could not start a node).
  void all_connected(size_t connections, size_t depth, const std::vector<std::string>& notes);
  void environment(const std::vector<std::pair<std::string, std::string>>& propagated);
  void attempt_started(int attempt, const std::string& master_addr, int master_port);
  void rank_ended(int attempt, int rank, const RankStatus& status);
  void attempt_ended(int attempt, int exit_code, std::optional<int> root_cause);
  // More about an attempt (its nodes, the spares it took, why it started, whose fault its failure was and what
  // was decided), merged into its entry.
  void attempt_details(int attempt, const nlohmann::json& details);
  // The job's nodes left out, with reasons (node -> {reason, attempt}).
  void excluded(const nlohmann::json& nodes);
  // What a rank's node noted about it (worker_setup.h); the error file's text is not kept here (it is
  // error-<rank>.json in the run directory).
  void note(int attempt, int rank, const std::string& key, const std::string& text);
  // A stall: how long nothing progressed, where the stacks are, and their groups.
  void hang(int64_t silent_ms, const std::string& stacks_file, const std::vector<diagnosis::StackGroup>& groups);
  // Why the job failed (diagnosis/matcher.h's JSON; empty: no diagnosis).
  void diagnosis(const nlohmann::json& diagnosis);
  // The job's telemetry (launch/telemetry_hub.h): the stragglers named, where the store and the report are.
  void telemetry(const nlohmann::json& part) { manifest_["telemetry"] = part; }
  void finish(int exit_code);
  Result<void> write(const std::string& path) const;
  const nlohmann::json& json() const { return manifest_; }

 private:
  nlohmann::json manifest_;
  int64_t started_ms_ = 0;
};

}  // namespace muster::launch
