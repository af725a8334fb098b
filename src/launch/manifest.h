// manifest.json of a run directory: what ran where, with which environment (secrets redacted), which
// muster, how long each phase took and how every rank ended. Written once at the end of a launch; the
// recorder only collects (no I/O until write()).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cluster/rank_plan.h"
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
  void all_connected();
  void environment(const std::vector<std::pair<std::string, std::string>>& propagated);
  void attempt_started(int attempt, const std::string& master_addr, int master_port);
  void rank_ended(int attempt, int rank, const RankStatus& status);
  void attempt_ended(int attempt, int exit_code);
  void finish(int exit_code);
  Result<void> write(const std::string& path) const;
  const nlohmann::json& json() const { return manifest_; }

 private:
  nlohmann::json manifest_;
  int64_t started_ms_ = 0;
};

}  // namespace muster::launch
