#include "launch/stack_rounds.h"

#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "posix/file.h"

namespace muster::launch {

StackRounds::StackRounds(AgentLink& agents, std::string run_dir, std::function<void(StackResult)> on_done)
    : agents_(agents), run_dir_(std::move(run_dir)), on_done_(std::move(on_done)) {}

void StackRounds::take(const Attempt& attempt, const std::vector<std::string>& node_names, bool stall, int client,
                       int64_t now, const std::string& heading) {
  if (client >= 0) clients_.push_back(client);
  if (collection_) {
    stall_ = stall_ || stall;
    return;
  }
  std::map<int, std::string> ranks;
  for (int rank = 0; rank < attempt.gang->world_size(); ++rank) {
    RankPhase phase = attempt.gang->status(rank).phase;
    if (phase == RankPhase::running || phase == RankPhase::pending) ranks[rank] = node_names[attempt.node_of_rank(rank)];
  }
  stall_ = stall;
  heading_ = heading;
  uint32_t request = ++rounds_;
  collection_.emplace(request, std::move(ranks), now + kStackRoundMs);
  std::vector<size_t> live;
  for (size_t node : attempt.nodes) {
    if (agents_.alive(node)) live.push_back(node);
  }
  agents_.broadcast(live, protocol::DumpStacks{request, protocol::kAllWorkers});
}

void StackRounds::add(const protocol::WorkerStack& answer) {
  if (collection_) collection_->add(answer);
}

void StackRounds::gone(int rank, const std::string& why) {
  if (collection_) collection_->gone(rank, why);
}

void StackRounds::forget_client(int client) { std::erase(clients_, client); }

void StackRounds::tick(int64_t now) {
  if (!collection_ || !collection_->complete(now)) return;
  auto stacks = collection_->result();
  StackResult result;
  result.stall = stall_;
  result.groups = diagnosis::group_stacks(stacks);
  result.summary = diagnosis::format_stack_summary(result.groups);
  result.stacks = diagnosis::format_full_stacks(stacks);
  std::string file = fmt::format("{}/stacks-{}.txt", run_dir_, collection_->request());
  auto written = posix::write_file_atomic(file, heading_ + result.summary + "\n\n" + result.stacks, 0600);
  result.file = written ? file : "(not saved: " + written.error().message + ")";
  result.clients = std::exchange(clients_, {});
  collection_.reset();
  stall_ = false;
  on_done_(std::move(result));
}

}  // namespace muster::launch
