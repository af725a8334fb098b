#include "head/node_runs.h"

#include <algorithm>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/exit_status.h"

namespace muster::head {
namespace {

class Collector final : public PoolListener {
 public:
  explicit Collector(std::vector<NodeRun>& runs) : runs_(runs) {}
  void on_message(size_t node, const protocol::AgentMessage& message) override {
    auto& run = runs_[node];
    if (auto* output = std::get_if<protocol::Output>(&message)) {
      (output->stream == protocol::Stream::err ? run.err : run.out) += output->bytes;
    } else if (auto* exited = std::get_if<protocol::WorkerExited>(&message)) {
      done_[node] = true;
      run.ran = exited->how != protocol::ExitHow::failed_to_start;
      run.exit_code = exited->how == protocol::ExitHow::signaled ? 128 + exited->code : exited->code;
      if (!run.ran) run.error = exited->detail;
    }
  }
  void on_lost(size_t node, const std::string& why, const std::string& diagnostics, bool) override {
    done_[node] = true;
    runs_[node].error = why + (diagnostics.empty() ? "" : ": " + diagnostics);
  }
  void expect(size_t count) { done_.assign(count, false); }
  void mark_done(size_t node) { done_[node] = true; }
  bool all_done() const { return std::all_of(done_.begin(), done_.end(), [](bool d) { return d; }); }

 private:
  std::vector<NodeRun>& runs_;
  std::vector<bool> done_;
};

}  // namespace

Result<std::vector<NodeRun>> run_on_nodes(AgentPool& pool, const std::function<NodeCommand(size_t)>& command,
                                          int timeout_ms) {
  std::vector<NodeRun> runs(pool.size());
  Collector collector(runs);
  collector.expect(pool.size());
  for (size_t node = 0; node < pool.size(); ++node) {
    if (!pool.alive(node)) {
      runs[node].error = "node lost";
      collector.mark_done(node);
      continue;
    }
    NodeCommand spec = command(node);
    pool.send(node, protocol::SpawnWorker{static_cast<uint32_t>(node), spec.argv, spec.env, "", "", 0});
  }
  int64_t deadline = posix::monotonic_ms() + timeout_ms;
  while (!collector.all_done()) {
    int64_t left = deadline - posix::monotonic_ms();
    if (left <= 0) {
      pool.broadcast(protocol::Terminate{0});
      for (auto& run : runs) {
        if (!run.ran && run.error.empty()) run.error = fmt::format("no result within {} s", timeout_ms / 1000);
      }
      return runs;
    }
    auto signals = pool.poll(static_cast<int>(std::min<int64_t>(left, 1000)), collector);
    if (!signals) return signals.error();
    if (!signals->empty()) {
      pool.broadcast(protocol::Terminate{0});
      return make_error(ErrorKind::interrupted, "interrupted by {}", posix::signal_name(signals->front()));
    }
  }
  return runs;
}

}  // namespace muster::head
