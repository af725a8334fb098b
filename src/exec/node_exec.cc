#include "exec/node_exec.h"

#include <algorithm>
#include <csignal>
#include <memory>

#include <fmt/core.h>

#include "posix/clock.h"
#include "util/text.h"

namespace muster::exec {
namespace {

// How long past its grace a stopped command may take to be reported ended before the head stops waiting.
constexpr int64_t kStopSlackMs = 3000;

// `text` on one line: each line break, with the indentation after it, becomes "; " (ssh's words after the pool's).
std::string on_one_line(std::string_view text) {
  std::string out;
  for (auto line : split_lines(text)) {
    line = trim(line);
    if (line.empty()) continue;
    if (!out.empty()) out += "; ";
    out += line;
  }
  return out;
}

class NodeExec final : public head::PoolListener {
 public:
  NodeExec(const NodeExecRequest& request, ExecWatcher& watcher) : request_(request), watcher_(watcher) {
    result_.outcomes.resize(request.nodes.size());
    for (size_t i = 0; i < request.nodes.size(); ++i) result_.outcomes[i].node = request.nodes[i].name;
  }

  Result<ExecResult> run() {
    if (auto connected = connect(); !connected) return connected.error();
    if (pool_) {
      start_commands();
      if (auto waited = wait_for_endings(); !waited) return waited.error();
      pool_->shutdown(2000);
    }
    return std::move(result_);
  }

  void on_message(size_t node, const protocol::AgentMessage& message) override {
    size_t index = members_[node];
    NodeOutcome& outcome = result_.outcomes[index];
    if (auto* output = std::get_if<protocol::Output>(&message)) {
      OutStream stream = output->stream == protocol::Stream::err ? OutStream::err : OutStream::out;
      if (request_.keep_output) (stream == OutStream::err ? outcome.err : outcome.out) += output->bytes;
      watcher_.on_output(index, stream, output->bytes);
    } else if (auto* exited = std::get_if<protocol::WorkerExited>(&message)) {
      record_exit(node, *exited);
    } else if (auto* error = std::get_if<protocol::AgentError>(&message)) {
      watcher_.on_note(fmt::format("{}: {}", outcome.node, error->message));
    }
  }

  void on_lost(size_t node, const std::string& why, const std::string& diagnostics, bool) override {
    if (done_[node]) return;
    NodeOutcome& outcome = result_.outcomes[members_[node]];
    if (outcome.ending == Ending::running) {
      outcome.ending = Ending::lost;
      outcome.reason = on_one_line(why + (diagnostics.empty() ? "" : ": " + diagnostics));
    }
    finish(node);
  }

 private:
  // Connects the pool to every node that can be reached; the others are `unreachable`, with the pool's reason.
  Result<void> connect() {
    head::PoolOptions options = request_.pool;
    options.tolerate_unreachable = true;
    auto pool = head::AgentPool::create(request_.nodes, options);
    if (!pool) return pool.error();
    if (auto connected = (*pool)->connect(); !connected) return connected.error();
    pool_ = std::move(*pool);
    for (size_t i = 0; i < request_.nodes.size(); ++i) {
      members_.push_back(i);  // the pool holds every node: pool node i is request node i
      if (pool_->unreachable(i).empty()) continue;
      NodeOutcome& outcome = result_.outcomes[i];
      outcome.ending = Ending::unreachable;
      outcome.reason = on_one_line(pool_->unreachable(i));
      watcher_.on_ended(i);
    }
    return {};
  }

  void start_commands() {
    done_.assign(members_.size(), false);
    stop_by_ms_.assign(members_.size(), 0);
    int64_t now = posix::monotonic_ms();
    deadline_ms_ = request_.timeout_ms > 0 ? now + request_.timeout_ms : 0;
    for (size_t node = 0; node < members_.size(); ++node) {
      if (!pool_->unreachable(node).empty()) {
        done_[node] = true;  // named already
        continue;
      }
      if (!pool_->alive(node)) {
        on_lost(node, "lost before the command started", "", false);
        continue;
      }
      std::vector<std::string> env = request_.env;
      env.push_back("MUSTER_NODE=" + pool_->name(node));
      pool_->send(node, protocol::SpawnWorker{0, request_.argv, std::move(env), request_.cwd, "", 0});
    }
  }

  Result<void> wait_for_endings() {
    while (std::find(done_.begin(), done_.end(), false) != done_.end()) {
      int64_t now = posix::monotonic_ms();
      stop_overdue(now);
      auto signals = pool_->poll(wait_ms(now), *this);
      if (!signals) return signals.error();
      if (!signals->empty()) interrupt();
    }
    return {};
  }

  int wait_ms(int64_t now) const {
    int64_t next = now + 1000;
    if (deadline_ms_ > 0 && !timed_out_) next = std::min(next, deadline_ms_);
    for (size_t node = 0; node < done_.size(); ++node) {
      if (!done_[node] && stop_by_ms_[node] > 0) next = std::min(next, stop_by_ms_[node]);
    }
    return static_cast<int>(std::clamp<int64_t>(next - now, 0, 1000));
  }

  // --timeout: every node still running is stopped; stopped nodes that never answered are given up.
  void stop_overdue(int64_t now) {
    if (deadline_ms_ > 0 && now >= deadline_ms_ && !timed_out_) {
      timed_out_ = true;
      for (size_t node = 0; node < done_.size(); ++node) {
        if (done_[node] || stop_by_ms_[node] > 0) continue;
        result_.outcomes[members_[node]].ending = Ending::timed_out;
        stop(node, now);
      }
    }
    for (size_t node = 0; node < done_.size(); ++node) {
      if (!done_[node] && stop_by_ms_[node] > 0 && now >= stop_by_ms_[node]) finish(node);
    }
  }

  void stop(size_t node, int64_t now) {
    stop_by_ms_[node] = now + request_.grace_ms + kStopSlackMs;
    pool_->send(node, protocol::Terminate{static_cast<uint32_t>(request_.grace_ms)});
  }

  void interrupt() {
    int64_t now = posix::monotonic_ms();
    if (result_.interrupted) {  // a second signal: no grace
      pool_->broadcast(protocol::Terminate{0});
      return;
    }
    result_.interrupted = true;
    for (size_t node = 0; node < done_.size(); ++node) {
      if (done_[node]) continue;
      auto& outcome = result_.outcomes[members_[node]];
      if (outcome.ending == Ending::running) outcome.ending = Ending::interrupted;
      if (stop_by_ms_[node] == 0) stop(node, now);
    }
  }

  void record_exit(size_t node, const protocol::WorkerExited& exited) {
    if (done_[node]) return;
    NodeOutcome& outcome = result_.outcomes[members_[node]];
    outcome.code = exited.code;
    if (outcome.ending == Ending::running) {
      switch (exited.how) {
        case protocol::ExitHow::exited: outcome.ending = Ending::exited; break;
        case protocol::ExitHow::signaled: outcome.ending = Ending::signaled; break;
        case protocol::ExitHow::failed_to_start:
          outcome.ending = Ending::failed_to_start;
          outcome.reason = exited.detail;
          break;
      }
    } else if (exited.how != protocol::ExitHow::signaled) {
      outcome.code = 0;  // stopped, but it ended by itself: no signal to name
    }
    finish(node);
  }

  void finish(size_t node) {
    done_[node] = true;
    watcher_.on_ended(members_[node]);
  }

  const NodeExecRequest& request_;
  ExecWatcher& watcher_;
  ExecResult result_;
  std::unique_ptr<head::AgentPool> pool_;
  std::vector<size_t> members_;  // pool node -> request index
  std::vector<bool> done_;        // by pool node
  std::vector<int64_t> stop_by_ms_;  // by pool node: stopped, and given up on past this
  int64_t deadline_ms_ = 0;
  bool timed_out_ = false;
};

}  // namespace

Result<ExecResult> exec_on_nodes(const NodeExecRequest& request, ExecWatcher& watcher) {
  return NodeExec(request, watcher).run();
}

}  // namespace muster::exec
