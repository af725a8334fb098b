#include "launch/stack_collection.h"

namespace muster::launch {
namespace {

diagnosis::StackKind kind_of(protocol::StackKind kind) {
  switch (kind) {
    case protocol::StackKind::python: return diagnosis::StackKind::python;
    case protocol::StackKind::native: return diagnosis::StackKind::native;
    case protocol::StackKind::kernel: return diagnosis::StackKind::kernel;
    default: return diagnosis::StackKind::none;
  }
}

}  // namespace

StackCollection::StackCollection(uint32_t request, std::map<int, std::string> ranks, int64_t deadline_ms)
    : request_(request), ranks_(std::move(ranks)), deadline_ms_(deadline_ms) {}

void StackCollection::add(const protocol::WorkerStack& answer) {
  if (answer.request != request_) return;
  auto rank = static_cast<int>(answer.worker);
  auto node = ranks_.find(rank);
  if (node == ranks_.end()) return;
  diagnosis::RankStack stack{rank, node->second, {}, answer.note};
  if (answer.kind != protocol::StackKind::none && !answer.text.empty()) {
    stack.dump = diagnosis::parse_stack_dump(kind_of(answer.kind), answer.text);
  }
  answers_[rank] = std::move(stack);
}

void StackCollection::gone(int rank, const std::string& why) {
  auto node = ranks_.find(rank);
  if (node == ranks_.end() || answers_.count(rank)) return;
  answers_[rank] = diagnosis::RankStack{rank, node->second, {}, why};
}

bool StackCollection::complete(int64_t now_ms) const {
  return answers_.size() == ranks_.size() || now_ms >= deadline_ms_;
}

std::vector<diagnosis::RankStack> StackCollection::result() const {
  std::vector<diagnosis::RankStack> stacks;
  for (const auto& [rank, node] : ranks_) {
    auto answer = answers_.find(rank);
    stacks.push_back(answer != answers_.end() ? answer->second
                                              : diagnosis::RankStack{rank, node, {}, "no answer in time"});
  }
  return stacks;
}

}  // namespace muster::launch
