// The head's side of `muster launch` (launcher.h): the wiring. One EventLoop; the pool of agents
// (head/agent_pool.h) and the control socket (launch_control.h) register there; every decision is the job
// machine's (job_machine.h), which this file feeds with the pool's events and serves as its AgentLink and JobHost:
// each worker's environment, the terminal and logs (launch_output.h), the manifest, judging a failure, stacks.
#include "launch/launcher.h"

#include <algorithm>
#include <cctype>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/core.h>

#include "launch/command_template.h"
#include "launch/container_launch.h"
#include "launch/failure_report.h"
#include "launch/fault_judge.h"
#include "launch/fd_budget.h"
#include "launch/flight_dumps.h"
#include "launch/job_machine.h"
#include "launch/job_report.h"
#include "launch/launch_setup.h"
#include "launch/launch_control.h"
#include "launch/launch_output.h"
#include "launch/manifest.h"
#include "launch/master_address.h"
#include "launch/redact_command.h"
#include "launch/stack_rounds.h"
#include "launch/telemetry_hub.h"
#include "launch/worker_env.h"
#include "posix/clock.h"
#include "posix/environment.h"
#include "posix/event_loop.h"
#include "posix/file.h"
#include "posix/limits.h"
#include "posix/proc.h"
#include "posix/signals.h"
#include "posix/terminal.h"
#include "util/random.h"
#include "util/run_dir.h"

namespace muster::launch {
namespace {

constexpr int kShutdownWaitMs = 3000;  // agents get this long to exit after Shutdown

class Launcher final : public head::PoolListener, public AgentLink, public JobHost {
 public:
  Launcher(const LaunchOptions& options, head::AgentPool& pool, LaunchOutput& output, const LaunchHooks& hooks,
           std::string job_id, std::string run_dir);
  Result<int> run();

 private:
  Result<int> run_job();
  Result<void> check_node_limits() const;
  // PoolListener
  void on_message(size_t node, const protocol::AgentMessage& message) override;
  void on_lost(size_t node, const std::string& why, const std::string& diagnostics, bool carried) override;
  void on_ready(size_t node) override { machine_.on_node_ready(node, posix::monotonic_ms()); }
  // AgentLink
  bool alive(size_t node) const override { return pool_.alive(node); }
  void send(size_t node, const protocol::HeadMessage& message) override { pool_.send(node, message); }
  void broadcast(const std::vector<size_t>& nodes, const protocol::HeadMessage& message) override;
  void reconnect(size_t node) override { pool_.reconnect(node); }
  // JobHost
  void notice(const std::string& text) override { output_.notice(text); }
  std::string master_address(size_t node) override { return launch::master_address(options_, &pool_.hello(node)); }
  protocol::SpawnWorker spawn_worker(const Attempt& attempt, const cluster::NodePlan& node,
                                     const cluster::RankAssignment& rank) override;
  Fault judge(const Attempt& attempt) override;
  void attempt_started(const Attempt& attempt) override;
  void rank_ended(const Attempt& attempt, int rank) override;
  void attempt_ended(const Attempt& attempt) override;
  void take_stacks() override;
  void running() override;
  // the rest
  void on_note(const protocol::WorkerNote& note);
  void on_stacks(StackResult result);
  FailureEvidence evidence(const Attempt& attempt);
  std::vector<std::string> node_names() const;

  const LaunchOptions& options_;
  head::AgentPool& pool_;
  LaunchOutput& output_;
  const LaunchHooks& hooks_;
  std::string job_id_;
  std::string run_dir_;
  JobMachine machine_;
  StackRounds stacks_;
  std::unique_ptr<LaunchControl> control_;
  std::unique_ptr<TelemetryHub> telemetry_;
  ManifestRecorder manifest_;
  std::map<int, std::map<std::string, std::string>> notes_;  // rank -> what its node noted (this attempt)
  std::map<size_t, std::string> gpu_faults_;  // node -> its first GPU fault of the node's own (this attempt)
  diagnosis::Diagnosis diagnosis_;
};

Launcher::Launcher(const LaunchOptions& options, head::AgentPool& pool, LaunchOutput& output,
                   const LaunchHooks& hooks, std::string job_id, std::string run_dir)
    : options_(options),
      pool_(pool),
      output_(output),
      hooks_(hooks),
      job_id_(std::move(job_id)),
      run_dir_(std::move(run_dir)),
      machine_(job_spec(options), *this, *this),
      stacks_(*this, run_dir_, [this](StackResult result) { on_stacks(std::move(result)); }) {}

std::vector<std::string> Launcher::node_names() const {
  std::vector<std::string> names;
  for (const auto& node : options_.plan.nodes) names.push_back(node.host.name);
  return names;
}

void Launcher::broadcast(const std::vector<size_t>& nodes, const protocol::HeadMessage& message) {
  pool_.send_to(nodes, message);
}

// --- the pool's events -----------------------------------------------------------------------------------------

void Launcher::on_message(size_t node, const protocol::AgentMessage& message) {
  int64_t now = posix::monotonic_ms();
  if (auto* output = std::get_if<protocol::Output>(&message)) {
    output_.output(static_cast<int>(output->worker),
                   output->stream == protocol::Stream::err ? logs::kStderr : logs::kStdout, output->bytes, now);
  } else if (auto* exited = std::get_if<protocol::WorkerExited>(&message)) {
    output_.end_of_stream(static_cast<int>(exited->worker), now);
  } else if (auto* error = std::get_if<protocol::AgentError>(&message)) {
    output_.notice(fmt::format("agent on {} reports: {}", pool_.name(node), error->message));
  } else if (auto* note = std::get_if<protocol::WorkerNote>(&message)) {
    on_note(*note);
  } else if (auto* gpu = std::get_if<protocol::GpuFault>(&message)) {
    // At once, naming node and GPU; a fault of the node's own makes the attempt's failure the node's (judge).
    output_.notice(fmt::format("{}: {}", pool_.name(node), gpu->text));
    if (gpu->node_fault) gpu_faults_.try_emplace(node, gpu->text);
  } else if (auto* stack = std::get_if<protocol::WorkerStack>(&message)) {
    stacks_.add(*stack);
  }
  telemetry_->on_message(node, message, now);
  machine_.on_message(node, message, now);
}

void Launcher::on_lost(size_t node, const std::string& why, const std::string& diagnostics, bool carried) {
  if (const Attempt* attempt = machine_.current(); attempt && attempt->gang && attempt->has_node(node)) {
    for (int rank = 0; rank < attempt->gang->world_size(); ++rank) {
      if (attempt->node_of_rank(rank) == node) stacks_.gone(rank, "its node was lost");
    }
  }
  machine_.on_node_lost(node, diagnostics.empty() ? why : why + "\n  " + diagnostics, carried, posix::monotonic_ms());
}

// --- the job machine's host ------------------------------------------------------------------------------------

protocol::SpawnWorker Launcher::spawn_worker(const Attempt& attempt, const cluster::NodePlan& node,
                                             const cluster::RankAssignment& rank) {
  size_t host = attempt.nodes[static_cast<size_t>(node.node_rank)];
  JobInfo job;
  job.job_id = job_id_;
  job.master_addr = attempt.master_addr;
  job.master_port = attempt.master_port;
  job.restart_count = attempt.number;
  job.max_restarts = options_.max_restarts;
  job.excluded_nodes = attempt.excluded;
  job.restart_reason = attempt.reason;
  uint32_t features = options_.diagnostics ? protocol::kFeatureDiagnostics | protocol::kFeatureFlightRecorder : 0;
  protocol::SpawnWorker spawn{static_cast<uint32_t>(rank.global_rank), options_.command, {}, options_.cwd, job_id_,
                              features, static_cast<uint32_t>(attempt.number)};
  cluster::NodePlan real = node;
  if (options_.per_node) {  // the node's own process: its real slots, numbered in this attempt
    real = options_.plan.nodes[host];
    real.node_rank = node.node_rank;
    TemplateValues values{node.node_rank, static_cast<int>(attempt.nodes.size()), attempt.master_addr,
                          attempt.master_port, static_cast<int>(real.ranks.size()), attempt.plan.world_size, job_id_};
    spawn.argv = expand_command(options_.command, values);
  }
  for (const auto& [name, value] : worker_env(options_, attempt.plan, host, real, options_.per_node ? real.ranks.front() : rank, job)) {
    spawn.env.push_back(name + "=" + value);
  }
  telemetry_->prepare_spawn(host, spawn);
  return spawn;
}

FailureEvidence Launcher::evidence(const Attempt& attempt) {
  (void)output_.flush_logs();
  std::vector<std::string> env;
  for (const auto& [name, value] : options_.propagated_env) env.push_back(name + "=" + value);
  return FailureEvidence{rank_ends(*attempt.gang, attempt.plan), notes_, run_dir_, options_.python, std::move(env)};
}

Fault Launcher::judge(const Attempt& attempt) {
  auto gpu = gpu_faults_;  // of the attempt's nodes only: a spare's bad GPU did not fail this attempt
  std::erase_if(gpu, [&](const auto& f) { return std::ranges::find(attempt.nodes, f.first) == attempt.nodes.end(); });
  auto failures = failed_ranks(evidence(attempt));
  auto diagnosis = diagnosis::diagnose(options_.catalogue, failures, diagnosis::ClusterFacts{});
  auto names = node_names();
  AttemptFacts known{attempt.plan.world_size, [&](const std::string& name) -> std::optional<size_t> {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return std::nullopt;
    return static_cast<size_t>(it - names.begin());
  }, std::move(gpu), telemetry_->first_step(attempt.number)};
  return judge_fault(failures, diagnosis, known);
}

void Launcher::attempt_started(const Attempt& attempt) {
  notes_.clear();
  gpu_faults_.clear();
  output_.set_plan(attempt.plan);
  manifest_.attempt_started(attempt.number, attempt.master_addr, attempt.master_port);
  std::vector<std::string> nodes;
  for (size_t node : attempt.nodes) nodes.push_back(pool_.name(node));
  nlohmann::json layout = nlohmann::json::array();
  for (const auto& node : attempt.plan.nodes) {
    layout.push_back({{"node", node.host.name}, {"first_rank", node.first_global_rank}, {"count", node.ranks.size()}});
  }
  manifest_.attempt_details(attempt.number, {{"nodes", nodes},
                                             {"layout", std::move(layout)},
                                             {"joined", machine_.roster().names(attempt.joined)},
                                             {"reason", attempt.reason},
                                             {"world_size", attempt.plan.world_size}});
  if (control_) control_->attempt_started(attempt);
}

void Launcher::rank_ended(const Attempt& attempt, int rank) {
  manifest_.rank_ended(attempt.number, rank, attempt.gang->status(rank));
}

void Launcher::attempt_ended(const Attempt& attempt) {
  manifest_.attempt_ended(attempt.number, attempt.exit_code, attempt.gang->root_cause());
  nlohmann::json details{{"decision", attempt.decision}};
  if (attempt.fault) {
    const char* kinds[] = {"node", "workload", "unknown"};
    details["fault"] = {{"kind", kinds[static_cast<int>(attempt.fault->kind)]}, {"reason", attempt.fault->reason}};
    if (attempt.fault->node) details["fault"]["node"] = pool_.name(*attempt.fault->node);
  }
  manifest_.attempt_details(attempt.number, details);
  manifest_.excluded(excluded_json(machine_.roster()));
}

void Launcher::take_stacks() {
  const Attempt* attempt = machine_.current();
  int64_t now = posix::monotonic_ms();
  int64_t silent = machine_.stall().silent_ms(now) / 1000;
  output_.notice(fmt::format("no rank has made progress for {} s (--hang-timeout): taking every rank's stack", silent));
  stacks_.take(*attempt, node_names(), true, -1, now,
               fmt::format("muster: stall: no progress on any rank for {} s\n", silent));
}

void Launcher::on_stacks(StackResult result) {
  if (control_) control_->stack_done(result);
  if (!result.stall) return;
  int64_t now = posix::monotonic_ms();
  manifest_.hang(machine_.stall().silent_ms(now), result.file, result.groups);
  output_.notice(fmt::format("every rank's stack, grouped by where the main thread is (all of them: {}):\n{}",
                             result.file, result.summary));
  machine_.on_stacks_taken(now);
}

void Launcher::running() {
  if (hooks_.on_running) hooks_.on_running(job_id_, control_ ? control_->run_dir() : run_dir_);
}

void Launcher::on_note(const protocol::WorkerNote& note) {
  const Attempt* attempt = machine_.current();
  int rank = static_cast<int>(note.worker);
  if (!attempt) return;
  if (note.key.starts_with(kFlightDumpNote)) {
    auto saved = save_flight_dump(run_dir_, note.key.substr(kFlightDumpNote.size()), note.text);
    if (!saved) return output_.notice(fmt::format("cannot save rank {}'s flight recorder dump: {}", rank, saved.error().message));
    std::string& list = notes_[rank]["flight-recorder-saved"];
    list += (list.empty() ? "" : "\n") + *saved;
    manifest_.note(attempt->number, rank, "flight-recorder-saved", list);
    return;
  }
  notes_[rank][note.key] = note.text;
  manifest_.note(attempt->number, rank, note.key, note.text);
  if (note.key == "error-file") {
    (void)posix::write_file_atomic(fmt::format("{}/error-{}.json", run_dir_, rank), note.text, 0600);
  }
}

// --- the run ---------------------------------------------------------------------------------------------------

Result<void> Launcher::check_node_limits() const {
  std::vector<size_t> children = relay_children(pool_.tree());  // an inner node of the tree holds their connections
  for (const auto& node : options_.plan.nodes) {
    auto index = static_cast<size_t>(node.node_rank);
    if (!pool_.alive(index)) continue;
    auto fits = check_node_descriptors(node.host.name, static_cast<int>(options_.per_node ? 1 : node.ranks.size()),
                                       children.at(index), pool_.hello(index).max_open_files);
    if (!fits) return fits.error();
  }
  return {};
}

Result<int> Launcher::run() {
  cluster::RankPlan gang_plan = gang_plan_of(options_);
  manifest_.begin(options_, gang_plan, job_id_, pool_.transport_name());
  control_ = std::make_unique<LaunchControl>(
      job_record(options_, gang_plan, job_id_, run_dir_),
      LaunchControl::Facts{options_.prefix_format, gang_plan.world_size, static_cast<int>(gang_plan.nodes.size()),
                           gang_plan.max_local_world_size},
      pool_.loop(), machine_, stacks_, output_, options_.grace_ms, [] { return posix::monotonic_ms(); });
  telemetry_ = std::make_unique<TelemetryHub>(options_, job_id_, control_->run_dir(), *this, output_, machine_);
  control_->set_telemetry(telemetry_.get());
  auto code = run_job();
  if (!code) control_->finish_unstarted(code.error().message);
  else control_->end(*code, [this](int ms) { (void)pool_.poll(ms, *this); });
  return code;
}

Result<int> Launcher::run_job() {
  control_->set_connecting(true);
  auto connected = pool_.connect();
  control_->set_connecting(false);
  if (!connected) {
    if (connected.error().kind != ErrorKind::interrupted) return connected.error();
    output_.notice("interrupted before the job started");
    return 128 + SIGINT;
  }
  std::vector<bool> up(pool_.size());
  for (size_t node = 0; node < pool_.size(); ++node) {
    up[node] = pool_.alive(node);
    if (up[node]) manifest_.node_connected(static_cast<int>(node), pool_.hello(node));
  }
  if (auto fits = check_node_limits(); !fits) return fits.error();  // before any worker starts
  for (const auto& note : pool_.notes()) output_.notice(note);
  manifest_.all_connected(pool_.connections(), pool_.depth(), pool_.notes());
  manifest_.environment(options_.propagated_env);
  machine_.start(up, up[0] ? static_cast<int>(pool_.hello(0).free_port) : 0, posix::monotonic_ms());
  while (!machine_.done()) {
    int64_t now = posix::monotonic_ms();
    int wait = static_cast<int>(std::clamp<int64_t>(std::min(machine_.next_deadline(now), stacks_.deadline()) - now, 0, 1000));
    auto signals = pool_.poll(wait, *this);
    if (!signals) return signals.error();
    now = posix::monotonic_ms();
    for (int signal : *signals) machine_.on_signal(signal, now);
    control_->serve();
    stacks_.tick(now);
    machine_.tick(now);
    telemetry_->tick(now);
    control_->notices_from_clients();
    output_.tick(now);
  }
  if (machine_.stop_error()) return *machine_.stop_error();
  const Attempt* last = machine_.current();
  bool failed = last && last->gang && last->gang->failed() && machine_.interrupts() == 0 && !last->stalled;
  if (failed) {
    diagnosis_ = diagnose_failure(&pool_, options_.catalogue, evidence(*last));  // probes run on the same loop
  }
  pool_.shutdown(kShutdownWaitMs);
  int code = machine_.exit_code();
  output_.finish();
  JobReport report{options_, machine_, output_, notes_, diagnosis_, run_dir_};
  if (std::string text = report.text(code); !text.empty()) output_.show(text);
  manifest_.diagnosis(diagnosis::diagnosis_json(diagnosis_));
  manifest_.telemetry(telemetry_->finish(code, posix::monotonic_ms()));
  manifest_.finish(code);
  if (auto written = manifest_.write(run_dir_ + "/manifest.json"); !written) output_.show("muster: " + written.error().message);
  return code;
}

}  // namespace

Result<int> run_launch(const LaunchOptions& options, const LaunchHooks& hooks) {
  posix::SignalBlock signals(launch_signals(options));
  auto loop = posix::EventLoop::create();
  if (!loop) return loop.error();
  std::vector<head::PoolNode> nodes;
  for (const auto& node : options.plan.nodes) {
    nodes.push_back({node.host.name, node.host.destination(),
                     options.container ? container_agent_args(*options.container, options.job_id, node.node_rank)
                                       : std::vector<std::string>{}});
  }
  auto pool = head::AgentPool::create(std::move(nodes), pool_options(options), **loop);
  if (!pool) return pool.error();
  // Before any agent starts: the head holds a connection to each node it starts itself (the pool's tree).
  auto limit = posix::open_file_limit();
  if (auto fits = check_head_descriptors(static_cast<int>(options.plan.nodes.size()), head_connections((*pool)->tree()),
                                         options.plan.world_size, limit.soft, limit.hard);
      !fits) {
    return fits.error();
  }
  std::string job_id = options.job_id.empty() ? new_job_id() : options.job_id;
  std::string run_dir = job_run_dir(options.run_dir, job_id);
  auto output = LaunchOutput::open(options, gang_plan_of(options), run_dir, **loop);
  if (!output) return output.error();
  Result<int> code = 0;
  {
    posix::NonBlockingScope nonblocking(1);  // a slow terminal must never stall the loop
    Launcher launcher(options, **pool, **output, hooks, job_id, run_dir);
    code = launcher.run();
  }
  (*output)->drain();
  return code;
}

}  // namespace muster::launch
