#include "launch/job_machine.h"

#include <algorithm>
#include <csignal>

#include <fmt/core.h>

namespace muster::launch {
namespace {

constexpr int64_t kReconnectWaitMs = 20'000;  // a next attempt waits this long for nodes being reconnected

int nodes_or_all(int wanted, size_t hosts) {
  return wanted <= 0 ? static_cast<int>(hosts) : std::min(wanted, static_cast<int>(hosts));
}

std::string signal_text(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return fmt::format("signal {}", signal);
  }
}

}  // namespace

JobMachine::JobMachine(JobSpec spec, AgentLink& agents, JobHost& host)
    : spec_(std::move(spec)),
      agents_(agents),
      host_(host),
      roster_(
          [&] {
            std::vector<std::string> names;
            for (const auto& node : spec_.plan.nodes) names.push_back(node.host.name);
            return names;
          }(),
          nodes_or_all(spec_.min_nodes > 0 ? spec_.min_nodes : spec_.max_nodes, spec_.plan.nodes.size()),
          nodes_or_all(spec_.max_nodes, spec_.plan.nodes.size())),
      policy_(spec_.restart),
      stall_(spec_.hang_timeout_ms),
      carried_(spec_.plan.nodes.size(), false),
      lost_why_(spec_.plan.nodes.size()),
      reconnecting_(spec_.plan.nodes.size(), false) {}

// --- starting attempts -------------------------------------------------------------------------------------------

void JobMachine::start(const std::vector<bool>& connected, int first_port, int64_t now) {
  for (size_t node = 0; node < connected.size() && node < roster_.size(); ++node) {
    roster_.set_connected(node, connected[node]);
    if (!connected[node]) exclude(node, "its agent did not start", now);
  }
  first_port_ = first_port;
  next_attempt("", now);
}

// Chooses the nodes of the next attempt (waiting a little for nodes being reconnected) and starts its preflight.
void JobMachine::next_attempt(const std::string& reason, int64_t now) {
  pending_reason_ = reason;
  bool waiting = std::any_of(reconnecting_.begin(), reconnecting_.end(), [](bool r) { return r; });
  if (waiting && now < reconnect_deadline_ms_) {
    phase_ = Phase::waiting;
    return;
  }
  auto chosen = roster_.choose();
  if (!chosen) {
    if (attempts_.empty()) stop_error_ = chosen.error();
    else host_.notice((reason.empty() ? "" : reason + "; ") + chosen.error().message + ": the job stops");
    return finish(chosen.error().message);
  }
  auto attempt = std::make_unique<Attempt>();
  attempt->number = static_cast<int>(attempts_.size());
  attempt->nodes = *chosen;
  attempt->reason = reason;
  attempt->excluded = roster_.names(roster_.excluded());
  if (const Attempt* previous = current()) {
    for (size_t node : attempt->nodes) {
      if (!previous->has_node(node)) attempt->joined.push_back(node);
    }
  }
  attempts_.push_back(std::move(attempt));
  begin_preflight(now);
}

// Every chosen agent answers a PickPort (node 0's answer is the attempt's MASTER_PORT): the nodes are reachable
// and their agents work before any rank starts, so a dead spare is left out in seconds. The first attempt, on
// agents that just said Hello, takes node 0's Hello port instead.
void JobMachine::begin_preflight(int64_t now) {
  Attempt& attempt = *attempts_.back();
  phase_ = Phase::preflight;
  attempt.master_addr = host_.master_address(attempt.nodes.front());
  if (attempt.number == 0 && first_port_ != 0 && preflight_seq_ == 0) {
    attempt.master_port = first_port_;
    return spawn(now);
  }
  ++preflight_seq_;
  preflight_waiting_ = std::set<size_t>(attempt.nodes.begin(), attempt.nodes.end());
  preflight_deadline_ms_ = now + spec_.preflight_ms;
  attempt.master_port = 0;
  for (size_t node : attempt.nodes) agents_.send(node, protocol::PickPort{preflight_seq_});
}

void JobMachine::on_port(size_t node, const protocol::PortReply& reply, int64_t now) {
  if (phase_ != Phase::preflight || reply.request != preflight_seq_ || !preflight_waiting_.count(node)) return;
  Attempt& attempt = *attempts_.back();
  if (reply.port == 0) {
    exclude(node, "cannot pick a free port: " + reply.error, now);
    attempts_.pop_back();
    return next_attempt(pending_reason_, now);
  }
  if (node == attempt.nodes.front()) attempt.master_port = static_cast<int>(reply.port);
  preflight_waiting_.erase(node);
  if (preflight_waiting_.empty()) spawn(now);
}

void JobMachine::spawn(int64_t now) {
  Attempt& attempt = *attempts_.back();
  attempt.plan = plan_for(spec_.plan, attempt.nodes);
  attempt.gang = std::make_unique<Gang>(attempt.plan);
  attempt.started_ms = now;
  phase_ = Phase::running;
  stall_.restart(now);
  stall_round_ = false;
  if (attempt.number > 0) host_.notice(attempt.reason + "; " + describe_start(attempt));
  host_.attempt_started(attempt);
  for (size_t i = 0; i < attempt.plan.nodes.size(); ++i) {
    const auto& node = attempt.plan.nodes[i];
    for (const auto& rank : node.ranks) agents_.send(attempt.nodes[i], host_.spawn_worker(attempt, node, rank));
  }
}

// "attempt 2 of 4 on node[1-2,4-5] (node5 from the spares)"
std::string JobMachine::describe_start(const Attempt& attempt) const {
  std::string text = fmt::format("attempt {} of {} on {}", attempt.number + 1, spec_.restart.max_restarts + 1,
                                 roster_.names(attempt.nodes));
  if (!attempt.joined.empty()) text += fmt::format(" ({} from the spares)", roster_.names(attempt.joined));
  if (static_cast<int>(attempt.nodes.size()) < roster_.max_nodes()) {
    text += fmt::format(", {} of {} nodes", attempt.nodes.size(), roster_.max_nodes());
  }
  return text;
}

// --- running -----------------------------------------------------------------------------------------------------

bool JobMachine::owns_rank(const Attempt& attempt, size_t node, uint32_t rank) const {
  return attempt.gang && rank < static_cast<uint32_t>(attempt.gang->world_size()) &&
         attempt.node_of_rank(static_cast<int>(rank)) == node;
}

void JobMachine::on_message(size_t node, const protocol::AgentMessage& message, int64_t now) {
  if (auto* port = std::get_if<protocol::PortReply>(&message)) return on_port(node, *port, now);
  if (auto* started = std::get_if<protocol::WorkerStarted>(&message)) return on_started(node, *started);
  if (auto* exited = std::get_if<protocol::WorkerExited>(&message)) return on_exited(node, *exited, now);
  if (auto* cleared = std::get_if<protocol::AttemptCleared>(&message)) return on_cleared(node, *cleared, now);
  if (std::holds_alternative<protocol::WorkerProgress>(message) || std::holds_alternative<protocol::Output>(message)) {
    on_progress(now);
  }
}

void JobMachine::on_started(size_t node, const protocol::WorkerStarted& started) {
  Attempt* attempt = attempts_.empty() ? nullptr : attempts_.back().get();
  if (phase_ != Phase::running || !attempt || !owns_rank(*attempt, node, started.worker)) return;
  attempt->gang->started(static_cast<int>(started.worker));
  if (announced_running_ || attempt->tearing_down) return;
  for (int rank = 0; rank < attempt->gang->world_size(); ++rank) {
    if (attempt->gang->status(rank).phase == RankPhase::pending) return;
  }
  announced_running_ = true;
  host_.running();
}

void JobMachine::on_exited(size_t node, const protocol::WorkerExited& exited, int64_t now) {
  Attempt* attempt = attempts_.empty() ? nullptr : attempts_.back().get();
  if (phase_ != Phase::running || !attempt || !owns_rank(*attempt, node, exited.worker)) return;
  int rank = static_cast<int>(exited.worker);
  RankPhase how = exited.how == protocol::ExitHow::exited     ? RankPhase::exited
                  : exited.how == protocol::ExitHow::signaled ? RankPhase::signaled
                                                              : RankPhase::failed_to_start;
  bool root = attempt->gang->ended(rank, how, exited.code, exited.detail, now);
  host_.rank_ended(*attempt, rank);
  if (root) {
    begin_teardown(fmt::format("rank {} on {} failed ({}); stopping all ranks", rank, roster_.name(node),
                               exited.detail),
                   now);
  }
  check_attempt_end(now);
}

void JobMachine::on_cleared(size_t node, const protocol::AttemptCleared& cleared, int64_t now) {
  Attempt* attempt = attempts_.empty() ? nullptr : attempts_.back().get();
  if (!attempt || cleared.attempt != static_cast<uint32_t>(attempt->number)) return;
  attempt->awaiting_clear.erase(node);
  check_attempt_end(now);
}

void JobMachine::on_node_lost(size_t node, const std::string& why, bool carried, int64_t now) {
  roster_.set_connected(node, false);
  reconnecting_[node] = false;
  carried_[node] = carried;  // healthy: only the node that started its agent went (reconnected for a restart)
  lost_why_[node] = why;
  std::string reason = fmt::format("{} lost: {}", roster_.name(node), why);
  Attempt* attempt = attempts_.empty() ? nullptr : attempts_.back().get();
  if (phase_ == Phase::preflight && attempt && attempt->has_node(node)) {
    if (!carried) exclude(node, "lost (" + why + ")", now);
    attempts_.pop_back();
    return next_attempt(pending_reason_, now);
  }
  if (phase_ != Phase::running || !attempt || !attempt->has_node(node)) {
    if (!carried && !done()) exclude(node, "lost (" + why + ")", now);  // a spare that went away
    return;
  }
  attempt->awaiting_clear.erase(node);
  if (!carried) {
    attempt->lost.push_back(node);
    exclude(node, "lost (" + why + ")", now);  // a node that dropped out is not trusted again before its cooldown
  }
  if (attempt->gang->node_lost(attempt->node_rank_of(node), reason, now)) {
    begin_teardown(reason + "; stopping all ranks", now);
  } else if (!attempt->tearing_down) {
    host_.notice(reason);
  }
  for (int rank = 0; rank < attempt->gang->world_size(); ++rank) {
    if (attempt->node_of_rank(rank) == node) host_.rank_ended(*attempt, rank);
  }
  check_attempt_end(now);
}

void JobMachine::on_node_ready(size_t node, int64_t now) {
  reconnecting_[node] = false;
  carried_[node] = false;
  roster_.set_connected(node, true);
  if (phase_ == Phase::waiting && !done() && !attempts_.empty()) next_attempt(pending_reason_, now);
}

void JobMachine::on_progress(int64_t now) {
  stall_.progress(now);
  if (phase_ == Phase::running && !attempts_.empty()) attempts_.back()->progressed = true;
}

// --- ending attempts ---------------------------------------------------------------------------------------------

void JobMachine::begin_teardown(const std::string& reason, int64_t now) {
  Attempt& attempt = *attempts_.back();
  if (attempt.tearing_down) return;
  attempt.tearing_down = true;
  attempt.gang->tearing_down();
  host_.notice(reason);
  std::vector<size_t> live;
  for (size_t node : attempt.nodes) {
    if (agents_.alive(node)) live.push_back(node);
  }
  attempt.awaiting_clear = std::set<size_t>(live.begin(), live.end());
  attempt.clear_deadline_ms = now + spec_.grace_ms + spec_.clear_slack_ms;
  agents_.broadcast(live, protocol::Terminate{static_cast<uint32_t>(spec_.grace_ms),
                                              static_cast<uint32_t>(attempt.number)});
}

void JobMachine::check_attempt_end(int64_t now) {
  if (phase_ != Phase::running || attempts_.empty()) return;
  Attempt& attempt = *attempts_.back();
  if (!attempt.gang->all_ended()) return;
  bool failed = attempt.gang->failed() || attempt.stalled;
  // A failed attempt ends when its processes are gone everywhere; an interrupted or successful one at once (the
  // agents' Shutdown ends whatever its workers left).
  if (failed && interrupts_ == 0 && !attempt.awaiting_clear.empty()) return;
  end_attempt(now);
}

// A node lost during the attempt explains it before anything its peers said: when a machine dies, the ranks on
// the others often fail first ("Connection reset by peer"), and they are never at fault for it.
Fault JobMachine::fault_of(const Attempt& attempt) {
  if (!attempt.lost.empty()) {
    size_t node = attempt.lost.front();
    return Fault{Fault::Kind::node, "lost (" + lost_why_[node] + ")", node, ""};
  }
  if (attempt.stalled) return Fault{Fault::Kind::unknown, "the job stalled", std::nullopt, ""};
  Fault fault = host_.judge(attempt);
  // A retry that failed the way the attempt before it did would fail so again.
  if (fault.kind == Fault::Kind::unknown && !fault.exception.empty() && attempts_.size() >= 2) {
    const Attempt& before = *attempts_[attempts_.size() - 2];
    if (before.fault && before.fault->exception == fault.exception) {
      fault.kind = Fault::Kind::workload;
      fault.reason = fmt::format("attempt {} failed with the same exception as attempt {} ({})", attempt.number + 1,
                                 before.number + 1, fault.exception);
    }
  }
  return fault;
}

void JobMachine::end_attempt(int64_t now) {
  Attempt& attempt = *attempts_.back();
  attempt.ended_ms = now;
  attempt.exit_code = attempt.stalled ? 124 : attempt.gang->exit_code();
  bool failed = attempt.gang->failed() || attempt.stalled;
  if (!failed || interrupts_ > 0) {
    host_.attempt_ended(attempt);
    return finish("");
  }
  attempt.fault = fault_of(attempt);
  std::string excluded;
  if (attempt.fault->kind == Fault::Kind::node && attempt.fault->node) {
    size_t node = *attempt.fault->node;
    exclude(node, attempt.fault->reason, now);
    bool lost = attempt.fault->reason.starts_with("lost");
    excluded = fmt::format("{}{}{}: excluded", roster_.name(node), lost ? " " : ": ", attempt.fault->reason);
  }
  auto decision = policy_.decide(*attempt.fault, attempt.exit_code, now);
  if (!decision.restart) {
    attempt.decision = (excluded.empty() ? "" : excluded + "; ") + decision.why;
    host_.attempt_ended(attempt);
    // A job that asked for no restarts ends as it always did: the report says the rest.
    if (spec_.restart.max_restarts > 0) host_.notice(attempt.decision);
    return finish(decision.why);
  }
  std::string reason = excluded.empty() ? attempt.fault->reason : excluded;
  attempt.decision = reason + "; restarting";
  host_.attempt_ended(attempt);
  // Nodes lost only with the node that carried them (the launch tree) are started again from the head; the next
  // attempt waits a little for them rather than take spares in their place.
  for (size_t node = 0; node < carried_.size(); ++node) {
    if (!carried_[node] || roster_.connected(node) || reconnecting_[node]) continue;
    reconnecting_[node] = true;
    reconnect_deadline_ms_ = now + kReconnectWaitMs;
    agents_.reconnect(node);
  }
  next_attempt(reason, now);
}

void JobMachine::exclude(size_t node, const std::string& reason, int64_t now) {
  int attempt = attempts_.empty() ? 0 : attempts_.back()->number;
  roster_.exclude(node, reason, now + spec_.cooldown_ms, attempt);
}

void JobMachine::finish(const std::string& reason) {
  phase_ = Phase::done;
  stop_reason_ = reason;
  kill_at_ms_.reset();
}

// --- the user ------------------------------------------------------------------------------------------------------

void JobMachine::on_signal(int signal, int64_t now) {
  if (spec_.forward_signals.contains(signal)) {
    const Attempt* attempt = current();
    if (phase_ != Phase::running || !attempt || attempt->tearing_down) {
      return host_.notice(fmt::format("{}: no rank is running to pass it to", signal_text(signal)));
    }
    std::vector<size_t> live;
    for (size_t node : attempt->nodes) {
      if (agents_.alive(node)) live.push_back(node);
    }
    agents_.broadcast(live, protocol::Signal{protocol::kAllWorkers, signal, static_cast<uint32_t>(attempt->number)});
    return host_.notice(fmt::format("{}: passed to every rank", signal_text(signal)));
  }
  interrupt(signal, false, now);
}

void JobMachine::on_stop(bool kill, int64_t now) {
  if (interrupts_ == 0) stop_requested_ = true;
  interrupt(SIGINT, kill, now);
}

// Ctrl-C, a signal, or `muster stop`: the first asks every rank to stop and kills them after the grace, a second
// (or `kill_now`) kills them at once. Nothing is restarted after it.
void JobMachine::interrupt(int signal, bool kill_now, int64_t now) {
  ++interrupts_;
  if (!interrupt_signal_) interrupt_signal_ = signal;
  if (done()) return;
  Attempt* attempt = attempts_.empty() ? nullptr : attempts_.back().get();
  if (phase_ != Phase::running || !attempt) return finish("interrupted before the job started");
  std::string who = stop_requested_ ? std::string("muster stop") : signal_text(signal);
  attempt->tearing_down = true;
  attempt->gang->tearing_down();
  if (interrupts_ == 1 && !kill_now) {
    // First Ctrl-C: pass SIGINT on (what the user's code expects), SIGKILL after the grace.
    host_.notice(fmt::format("{}: stopping all ranks (again to kill them at once)", who));
    agents_.broadcast(attempt->nodes, protocol::Signal{protocol::kAllWorkers, signal == SIGINT ? SIGINT : SIGTERM,
                                                       protocol::kAllAttempts});
    kill_at_ms_ = now + spec_.grace_ms;
  } else {
    host_.notice(fmt::format("{}: killing all ranks now", who));
    agents_.broadcast(attempt->nodes, protocol::Signal{protocol::kAllWorkers, SIGKILL, protocol::kAllAttempts});
    kill_at_ms_.reset();
  }
  check_attempt_end(now);
}

void JobMachine::on_stacks_taken(int64_t now) {
  if (!stall_round_) return;
  stall_round_ = false;
  Attempt* attempt = attempts_.empty() ? nullptr : attempts_.back().get();
  if (phase_ != Phase::running || !attempt || attempt->tearing_down) return;
  if (!spec_.kill_on_hang) return stall_.restart(now);  // dump only: another stall is a full timeout away
  attempt->stalled = true;
  begin_teardown(fmt::format("the job stalled (no progress for {} s); stopping all ranks", stall_.silent_ms(now) / 1000),
                 now);
}

bool JobMachine::ranks_running() const {
  return phase_ == Phase::running && current() && !current()->tearing_down;
}

void JobMachine::tick(int64_t now) {
  if (kill_at_ms_ && now >= *kill_at_ms_ && current()) {
    agents_.broadcast(current()->nodes, protocol::Signal{protocol::kAllWorkers, SIGKILL, protocol::kAllAttempts});
    kill_at_ms_.reset();
  }
  for (size_t node : roster_.expire(now)) {
    if (!done() && !roster_.connected(node) && !reconnecting_[node]) {
      reconnecting_[node] = true;
      agents_.reconnect(node);
    }
  }
  if (phase_ == Phase::waiting && !attempts_.empty() && !done() && now >= reconnect_deadline_ms_) {
    next_attempt(pending_reason_, now);
  }
  if (phase_ == Phase::preflight && now >= preflight_deadline_ms_) {
    for (size_t node : preflight_waiting_) {
      exclude(node, fmt::format("no answer to the preflight within {} s", spec_.preflight_ms / 1000), now);
    }
    attempts_.pop_back();
    next_attempt(pending_reason_, now);
  }
  if (phase_ != Phase::running || attempts_.empty()) return;
  Attempt& attempt = *attempts_.back();
  if (attempt.tearing_down && !attempt.awaiting_clear.empty() && now >= attempt.clear_deadline_ms) {
    for (size_t node : attempt.awaiting_clear) {
      exclude(node, fmt::format("its ranks were not gone {} s after the teardown began",
                                (spec_.grace_ms + spec_.clear_slack_ms) / 1000), now);
    }
    attempt.awaiting_clear.clear();
    check_attempt_end(now);
    return;
  }
  if (!attempt.tearing_down && !stall_round_ && stall_.stalled(now)) {
    stall_round_ = true;
    host_.take_stacks();
  }
}

int64_t JobMachine::next_deadline(int64_t now) const {
  int64_t deadline = now + 1000;
  if (kill_at_ms_) deadline = std::min(deadline, *kill_at_ms_);
  if (phase_ == Phase::preflight) deadline = std::min(deadline, preflight_deadline_ms_);
  if (phase_ == Phase::waiting) deadline = std::min(deadline, reconnect_deadline_ms_);
  if (phase_ == Phase::running && current()) {
    const Attempt& attempt = *current();
    if (attempt.tearing_down && !attempt.awaiting_clear.empty()) deadline = std::min(deadline, attempt.clear_deadline_ms);
    // Only while a stall can still be acted on: past its deadline during a teardown or a stack round, it would
    // wake the loop at once, round after round.
    if (!attempt.tearing_down && !stall_round_ && stall_.enabled()) deadline = std::min(deadline, stall_.deadline());
  }
  return std::max(deadline, now);
}

int JobMachine::exit_code() const {
  if (interrupts_ > 0) return 128 + interrupt_signal_;
  const Attempt* attempt = current();
  if (!attempt || !attempt->gang) return 1;
  return attempt->exit_code;
}

}  // namespace muster::launch
