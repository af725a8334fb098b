// One round of "every rank's stack": the launcher sends DumpStacks to every agent and feeds the WorkerStack
// answers here until every running rank answered or the deadline passed; ranks that did not answer get a note
// saying so. Pure bookkeeping; the grouping and the report are diagnosis/stack_groups.h's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "diagnosis/stack_groups.h"
#include "protocol/messages.h"

namespace muster::launch {

class StackCollection {
 public:
  // `ranks`: rank -> its node's name, for every rank that is asked.
  StackCollection(uint32_t request, std::map<int, std::string> ranks, int64_t deadline_ms);

  uint32_t request() const { return request_; }
  // An answer (another request's is ignored).
  void add(const protocol::WorkerStack& answer);
  // A rank ended or its node was lost while asked: it answers no more.
  void gone(int rank, const std::string& why);
  bool complete(int64_t now_ms) const;
  int64_t deadline() const { return deadline_ms_; }
  // Every asked rank, answered or with a note why not.
  std::vector<diagnosis::RankStack> result() const;

 private:
  uint32_t request_;
  std::map<int, std::string> ranks_;
  std::map<int, diagnosis::RankStack> answers_;
  int64_t deadline_ms_;
};

}  // namespace muster::launch
