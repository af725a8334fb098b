// StackRounds: "every rank's stack", for a stall the job machine detected or for `muster stack` clients. A round
// sends DumpStacks to the attempt's nodes, collects the WorkerStack answers (StackCollection) until every running
// rank answered or kStackRoundMs passed, then groups them (diagnosis/stack_groups.h), saves them to
// <run dir>/stacks-N.txt and hands the result to its owner. One round at a time; a request during a round waits
// for that round's result.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "diagnosis/stack_groups.h"
#include "launch/attempt.h"
#include "launch/job_machine.h"
#include "launch/stack_collection.h"

namespace muster::launch {

struct StackResult {
  bool stall = false;        // taken for a stall (else: for clients)
  std::vector<int> clients;  // control clients waiting for it
  std::string summary;       // the groups, for people
  std::string file;          // where every stack was saved, or "(not saved: why)"
  std::string stacks;        // every rank's stack
  std::vector<diagnosis::StackGroup> groups;
};

class StackRounds {
 public:
  static constexpr int64_t kStackRoundMs = 20'000;  // agents answer DumpStacks within this (or not at all)

  StackRounds(AgentLink& agents, std::string run_dir, std::function<void(StackResult)> on_done);

  bool busy() const { return collection_.has_value(); }
  // Starts a round over the attempt's running ranks, or adds `client` (>= 0) to the one in progress.
  void take(const Attempt& attempt, const std::vector<std::string>& node_names, bool stall, int client, int64_t now,
            const std::string& heading);
  void add(const protocol::WorkerStack& answer);
  void gone(int rank, const std::string& why);
  void forget_client(int client);
  void tick(int64_t now);
  int64_t deadline() const { return collection_ ? collection_->deadline() : INT64_MAX; }

 private:
  AgentLink& agents_;
  std::string run_dir_;
  std::function<void(StackResult)> on_done_;
  std::optional<StackCollection> collection_;
  bool stall_ = false;
  std::string heading_;
  std::vector<int> clients_;
  uint32_t rounds_ = 0;
};

}  // namespace muster::launch
