#include "agent/telemetry_sampler.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/core.h>

#include "agent/worker_setup.h"
#include "posix/clock.h"
#include "posix/environment.h"
#include "posix/file.h"
#include "posix/interfaces.h"
#include "posix/system_info.h"
#include "telemetry/proc_stats.h"
#include "telemetry/samples.h"
#include "telemetry/step_lines.h"
#include "util/text.h"

namespace muster::agent {
namespace {

std::string env_value(const std::vector<std::string>& env, const std::string& name) {
  return posix::find_variable(env, name).value_or("");
}

// The interface a socket-interface variable names: its first entry, unless it is an exclusion list ("^lo,docker").
std::string named_interface(const std::string& value) {
  std::string first = value.substr(0, value.find(','));
  if (first.starts_with("=")) first.erase(0, 1);
  if (first.empty() || first.starts_with("^")) return "";
  return first;
}

}  // namespace

TelemetrySampler::TelemetrySampler(posix::EventLoop& loop, HeadLink& head, Workers workers, std::string node_name)
    : loop_(loop),
      head_(head),
      workers_(std::move(workers)),
      node_name_(std::move(node_name)),
      gpus_(loop),
      steps_(loop),
      agent_cgroup_(cpu_cgroup_of(0).path) {
  timer_ = loop_.timer([this](int64_t now) { on_timer(now); });
}

void TelemetrySampler::start(const protocol::TelemetryStart& start) {
  interval_ms_ = static_cast<int>(std::max<uint32_t>(start.interval_ms, 100));
  std::shared_ptr<const std::regex> pattern;
  if (!start.step_pattern.empty()) {
    auto compiled = telemetry::compile_step_pattern(start.step_pattern);
    if (compiled) pattern = *compiled;
    else pending_notes_.push_back("steps: " + compiled.error().message);
  }
  steps_.configure(pattern, (start.flags & protocol::kTelemetryTqdm) != 0);
  int64_t now = posix::monotonic_ms();
  gpus_.start(interval_ms_, now);
  if (!started_) {
    started_ = true;
    baseline_due_ = true;
    last_ms_ = now;
    timer_.arm(now + std::min<int64_t>(kBaselineDelayMs, interval_ms_));
    return;
  }
  if (!baseline_due_) timer_.arm(now + interval_ms_);
}

void TelemetrySampler::on_timer(int64_t now) {
  if (!baseline_due_) return sample(now);
  take_baseline(now);
  timer_.arm(now + interval_ms_);
}

// The first interval's baseline (the node's counters), and the job's interface once a spawn named it.
void TelemetrySampler::take_baseline(int64_t now) {
  baseline_due_ = false;
  if (interface_due_) choose_interface();
  (void)node_.sample(now, 0);
  last_ms_ = now;
}

void TelemetrySampler::prepare(protocol::SpawnWorker& spawn) {
  facts_[spawn.worker] = Facts{env_value(spawn.env, "LOCAL_RANK"), env_value(spawn.env, "CUDA_VISIBLE_DEVICES")};
  nccl_ifname_ = env_value(spawn.env, "NCCL_SOCKET_IFNAME");
  gloo_ifname_ = env_value(spawn.env, "GLOO_SOCKET_IFNAME");
  master_addr_ = env_value(spawn.env, "MASTER_ADDR");
  interface_due_ = true;
  if ((spawn.features & protocol::kFeatureSteps) == 0) return;
  if (!step_dir_) {
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    step_dir_ = StepFilesDir::make(runtime ? runtime : "", "/dev/shm", posix::effective_uid(),
                                   job_node_dir(spawn.job, node_name_));
  }
  auto prepared = steps_.prepare(step_dir_->path(), spawn.worker, spawn.env);
  if (!prepared && !step_error_sent_) {
    step_error_sent_ = true;
    head_.send(protocol::AgentError{"no step timing on this node: " + prepared.error().message});
  }
}

// The job's interface: the one its NCCL/gloo variables name, else the one that reaches MASTER_ADDR (an address of
// this node's own: its interface; a loopback address: lo).
void TelemetrySampler::choose_interface() {
  interface_due_ = false;
  std::string chosen = named_interface(nccl_ifname_);
  if (chosen.empty()) chosen = named_interface(gloo_ifname_);
  const std::string& master = master_addr_;
  if (chosen.empty() && !master.empty()) {
    if (auto addresses = posix::interface_addresses()) {
      for (const auto& address : *addresses) {
        if (address.address == master) chosen = address.interface;
      }
    }
    if (chosen.empty() && master.starts_with("127.")) chosen = "lo";
    if (chosen.empty()) {
      if (auto route = posix::read_text_file("/proc/net/route")) chosen = telemetry::route_interface(*route, master);
    }
  }
  if (!chosen.empty() && chosen != node_.interface()) node_.set_interface(chosen);
}

uint32_t TelemetrySampler::gpu_of(uint32_t worker) const {
  auto it = facts_.find(worker);
  if (it == facts_.end() || it->second.local_rank.empty()) return telemetry::kNone;
  int local = std::atoi(it->second.local_rank.c_str());
  std::string device = std::to_string(local);
  if (!it->second.visible_devices.empty()) {
    std::vector<std::string> devices;
    std::string_view rest = it->second.visible_devices;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      devices.emplace_back(trim(rest.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    if (devices.empty()) return telemetry::kNone;
    device = devices[static_cast<size_t>(local) % devices.size()];
  }
  return gpus_.index_of(device).value_or(telemetry::kNone);
}

void TelemetrySampler::worker_ended(uint32_t worker, int64_t exited_at_ms) {
  if (started_ && exited_at_ms >= last_ms_ && steps_.has_steps(worker)) sample(posix::monotonic_ms());
}

void TelemetrySampler::sample(int64_t now) {
  take_sample(now);
  // Sampling takes at most a tenth of the agent's time: a node too slow for the interval (1,000 ranks on a share
  // of a core) is sampled less often, never at the cost of its heartbeats.
  int64_t took = posix::monotonic_ms() - now;
  timer_.arm(now + std::max<int64_t>(interval_ms_, took * kBusyFactor));
}

void TelemetrySampler::take_sample(int64_t now) {
  if (baseline_due_) take_baseline(now);  // a worker that ended within kBaselineDelayMs
  if (interface_due_) choose_interface();
  uint32_t interval = static_cast<uint32_t>(std::max<int64_t>(now - last_ms_, 1));
  last_ms_ = now;
  telemetry::NodeSample sample;
  sample.unix_ms = posix::unix_time_ms();
  sample.interval_ms = interval;
  sample.notes = std::move(pending_notes_);
  pending_notes_.clear();
  std::map<uint32_t, WorkerInfo> workers;
  std::set<int> groups;
  for (const auto& worker : workers_()) {
    workers[worker.id] = worker;
    if (worker.pgid > 0) groups.insert(worker.pgid);
  }
  gpus_.tick(now, groups);
  // Every rank with steps, and every running worker's own process as a rank of its own when it has none.
  auto ranks = steps_.collect(now, interval);
  std::set<uint32_t> covered;
  for (const auto& r : ranks) covered.insert(r.worker);
  for (const auto& [id, worker] : workers) {
    if (worker.running && !covered.contains(id)) {
      StepSources::RankSteps plain;
      plain.worker = id;
      plain.sample.rank = id;
      ranks.push_back(plain);
    }
  }
  uint64_t ranks_ticks = 0;
  std::set<uint32_t> seen;
  for (auto& r : ranks) {
    auto worker = workers.find(r.worker);
    bool running = worker != workers.end() && worker->second.running;
    int pid = r.pid > 0 ? r.pid : (worker != workers.end() ? worker->second.pid : 0);
    if (running && pid > 0 && seen.size() < kMaxMeteredProcesses) {
      auto& meter = processes_[r.sample.rank];
      if (!meter || meter->pid() != pid) meter = std::make_unique<ProcessMeter>(pid, agent_cgroup_);
      ranks_ticks += meter->sample(now, r.sample, sample.notes);
      seen.insert(r.sample.rank);
    }
    r.sample.gpu = gpu_of(r.worker);
    // An ended rank once more when it stepped, or made its optimizer, since the last sample: the head judges a
    // failure before the first step by it (launch/first_step.h).
    if (running || r.sample.steps > 0 || r.news) sample.ranks.push_back(r.sample);
  }
  std::erase_if(processes_, [&](const auto& entry) { return !seen.contains(entry.first); });
  sample.node = node_.sample(now, ranks_ticks);
  sample.gpus = gpus_.gpus();
  for (auto& note : gpus_.take_notes()) sample.notes.push_back(std::move(note));
  if (!node_.interface().empty()) sample.notes.push_back("net " + node_.interface());
  head_.send(telemetry::to_message(sample));
}

}  // namespace muster::agent
