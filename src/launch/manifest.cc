#include "launch/manifest.h"

#include <chrono>

#include <fmt/format.h>

#include "launch/env_policy.h"
#include "launch/launch_options.h"
#include "launch/rank_log_files.h"
#include "launch/redact_command.h"
#include "posix/file.h"
#include "posix/clock.h"
#include "posix/memory.h"
#include "util/version.h"

namespace muster::launch {
namespace {

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void ManifestRecorder::begin(const LaunchOptions& options, const cluster::RankPlan& plan,
                             const std::string& job_id, const std::string& transport) {
  started_ms_ = posix::monotonic_ms();
  manifest_ = {{"job_id", job_id},
               {"muster_version", kVersion},
               {"started_unix_ms", unix_ms()},
               {"transport", transport},
               {"command", redact_command(options.command)},
               {"per_node", options.per_node},
               {"cwd", options.cwd},
               {"world_size", plan.world_size},
               {"nodes", nlohmann::json::array()},
               {"attempts", nlohmann::json::array()}};
  if (options.container) {  // the per-node container names are container::container_name(job_id, node rank)
    const auto& spec = *options.container;
    manifest_["container"] = {{"image", spec.image},
                              {"existing", spec.existing},
                              {"runtime", spec.runtime.empty() ? "auto" : spec.runtime},
                              {"gpus", container::gpu_mode_name(spec.gpus)},
                              {"shm_size", spec.shm_size.empty() ? "host" : spec.shm_size}};
    nlohmann::json mounts = nlohmann::json::array();
    for (const auto& m : spec.mounts) mounts.push_back(m.source + ":" + m.target + (m.read_only ? ":ro" : ""));
    manifest_["container"]["mounts"] = mounts;
    nlohmann::json limits = nlohmann::json::array();
    for (const auto& u : spec.ulimits) limits.push_back(u.flag_value());
    manifest_["container"]["ulimits"] = limits;
  }
  for (const auto& node : plan.nodes) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& rank : node.ranks) {
      ranks.push_back({{"rank", rank.global_rank}, {"local_rank", rank.local_rank}, {"device", rank.device}});
    }
    manifest_["nodes"].push_back(
        {{"node_rank", node.node_rank}, {"host", node.host.destination()}, {"ranks", ranks}});
  }
}

void ManifestRecorder::node_connected(int node_rank, const protocol::Hello& hello) {
  auto& node = manifest_["nodes"].at(static_cast<size_t>(node_rank));
  node["hostname"] = hello.hostname;
  node["agent_version"] = hello.version;
  node["addresses"] = hello.addresses;
}

void ManifestRecorder::all_connected(size_t connections, size_t depth, const std::vector<std::string>& notes) {
  manifest_["timings_ms"]["connect"] = posix::monotonic_ms() - started_ms_;
  manifest_["launch_tree"] = {{"head_connections", connections}, {"depth", depth}, {"notes", notes}};
}

void ManifestRecorder::environment(const std::vector<std::pair<std::string, std::string>>& propagated) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [name, value] : propagated) env[name] = redact(name, value);
  manifest_["propagated_env"] = env;
}

void ManifestRecorder::attempt_started(int attempt, const std::string& master_addr, int master_port) {
  manifest_["attempts"].push_back({{"attempt", attempt},
                                   {"master_addr", master_addr},
                                   {"master_port", master_port},
                                   {"started_ms", posix::monotonic_ms() - started_ms_},
                                   {"ranks", nlohmann::json::object()}});
  (void)attempt;
}

void ManifestRecorder::rank_ended(int attempt, int rank, const RankStatus& status) {
  auto& ranks = manifest_["attempts"].at(static_cast<size_t>(attempt))["ranks"];
  ranks[std::to_string(rank)] = {{"state", rank_phase_name(status.phase)},
                                 {"code", status.code},
                                 {"detail", status.detail},
                                 {"stopped_by_muster", status.by_muster},
                                 {"ended_ms", status.ended_ms - started_ms_}};
}

void ManifestRecorder::attempt_ended(int attempt, int exit_code, std::optional<int> root_cause) {
  auto& entry = manifest_["attempts"].at(static_cast<size_t>(attempt));
  entry["exit_code"] = exit_code;
  if (root_cause) entry["root_cause"] = *root_cause;
  entry["ended_ms"] = posix::monotonic_ms() - started_ms_;
}

void ManifestRecorder::attempt_details(int attempt, const nlohmann::json& details) {
  auto& entry = manifest_["attempts"].at(static_cast<size_t>(attempt));
  for (const auto& [key, value] : details.items()) entry[key] = value;
}

void ManifestRecorder::excluded(const nlohmann::json& nodes) { manifest_["excluded"] = nodes; }

void ManifestRecorder::note(int attempt, int rank, const std::string& key, const std::string& text) {
  auto& entry = manifest_["attempts"].at(static_cast<size_t>(attempt));
  entry["notes"][std::to_string(rank)][key] = key == "error-file" ? fmt::format("error-{}.json", rank) : text;
}

void ManifestRecorder::hang(int64_t silent_ms, const std::string& stacks_file,
                            const std::vector<diagnosis::StackGroup>& groups) {
  nlohmann::json entry{{"at_ms", posix::monotonic_ms() - started_ms_}, {"silent_ms", silent_ms},
                       {"stacks_file", stacks_file}, {"groups", nlohmann::json::array()}};
  for (const auto& group : groups) {
    entry["groups"].push_back({{"ranks", group.ranks}, {"nodes", group.nodes}, {"where", group.where}, {"odd", group.odd}});
  }
  manifest_["hangs"].push_back(std::move(entry));
}

void ManifestRecorder::diagnosis(const nlohmann::json& diagnosis) {
  if (!diagnosis.empty()) manifest_["diagnosis"] = diagnosis;
}

void ManifestRecorder::finish(int exit_code) {
  manifest_["exit_code"] = exit_code;
  manifest_["timings_ms"]["total"] = posix::monotonic_ms() - started_ms_;
  manifest_["head_peak_rss_bytes"] = posix::peak_resident_bytes();  // what a big job costs the head's machine
}

Result<void> ManifestRecorder::write(const std::string& path) const {
  // Commands and output may hold bytes that are not UTF-8; JSON cannot: they become U+FFFD.
  std::string text = manifest_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
  return posix::write_file_atomic(path, text, kRunFileMode);  // private, like the rank logs
}

}  // namespace muster::launch
