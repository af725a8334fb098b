#include "launch/gang.h"

#include <fmt/core.h>

#include <cassert>

namespace muster::launch {

Gang::Gang(const cluster::RankPlan& plan) : ranks_(static_cast<size_t>(plan.world_size)) {
  node_of_rank_.resize(ranks_.size());
  for (const auto& node : plan.nodes) {
    for (const auto& rank : node.ranks) node_of_rank_[static_cast<size_t>(rank.global_rank)] = node.node_rank;
  }
}

void Gang::started(int rank) {
  auto& status = ranks_.at(static_cast<size_t>(rank));
  if (status.phase == RankPhase::pending) status.phase = RankPhase::running;
}

bool Gang::is_failure(const RankStatus& status) const {
  return status.phase != RankPhase::exited || status.code != 0;
}

bool Gang::record(int rank, RankStatus status) {
  auto& slot = ranks_.at(static_cast<size_t>(rank));
  if (slot.phase != RankPhase::pending && slot.phase != RankPhase::running) return false;  // first word wins
  status.by_muster = tearing_down_;
  slot = std::move(status);
  // Endings after the teardown began (a root cause, or the user's Ctrl-C) are consequences, not causes.
  if (root_cause_ || tearing_down_ || !is_failure(slot)) return false;
  root_cause_ = rank;
  return true;
}

bool Gang::ended(int rank, RankPhase how, int code, std::string detail, int64_t now_ms) {
  assert(how == RankPhase::exited || how == RankPhase::signaled || how == RankPhase::failed_to_start);
  return record(rank, RankStatus{how, code, std::move(detail), false, now_ms});
}

bool Gang::node_lost(int node_rank, const std::string& why, int64_t now_ms) {
  bool made_root_cause = false;
  for (size_t rank = 0; rank < ranks_.size(); ++rank) {
    if (node_of_rank_[rank] != node_rank) continue;
    made_root_cause |= record(static_cast<int>(rank), RankStatus{RankPhase::lost, 0, why, false, now_ms});
  }
  return made_root_cause;
}

bool Gang::all_ended() const {
  for (const auto& status : ranks_) {
    if (status.phase == RankPhase::pending || status.phase == RankPhase::running) return false;
  }
  return true;
}

int Gang::exit_code() const {
  if (!root_cause_) return 0;
  const auto& cause = ranks_[static_cast<size_t>(*root_cause_)];
  switch (cause.phase) {
    case RankPhase::exited:
      return cause.code;
    case RankPhase::signaled:
      return 128 + cause.code;
    default:
      return 1;
  }
}

const char* rank_phase_name(RankPhase phase) {
  switch (phase) {
    case RankPhase::pending: return "pending";
    case RankPhase::running: return "running";
    case RankPhase::exited: return "exited";
    case RankPhase::signaled: return "signaled";
    case RankPhase::failed_to_start: return "failed_to_start";
    case RankPhase::lost: return "lost";
  }
  return "unknown";
}

}  // namespace muster::launch
