#include "doctor/gpu/gather_gpu.h"

#include <cstdlib>

#include "doctor/gpu/node_sysfs.h"
#include "doctor/gpu/smi_output.h"
#include "gpu/kernel_events.h"
#include "posix/clock.h"
#include "posix/environment.h"
#include "posix/file.h"
#include "posix/kernel_log.h"
#include "posix/proc.h"
#include "posix/run_commands.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

constexpr int kMaxQueryRetries = 6;     // fields a driver may not know: each costs one more nvidia-smi
constexpr size_t kMaxXids = 256;        // the last ones since boot
constexpr size_t kMaxLogLines = 4096;   // NVRM lines read from the kernel log

std::vector<std::string> query_argv(const std::vector<std::string>& fields) {
  return {"nvidia-smi", "--query-gpu=" + join(fields, ","), "--format=csv,noheader,nounits"};
}

// The health query, asked again without each field this nvidia-smi refuses (bounded).
posix::CommandOutcome run_health_query(posix::CommandOutcome first, std::vector<std::string>& fields,
                                       std::vector<std::string>& refused, int timeout_ms) {
  posix::CommandOutcome outcome = std::move(first);
  for (int retry = 0; retry < kMaxQueryRetries && !outcome.succeeded(); ++retry) {
    auto field = refused_field(outcome.out + outcome.err);
    if (!field || !next_query_fields(fields, *field)) break;
    refused.push_back(*field);
    outcome = posix::run_commands({query_argv(fields)}, timeout_ms).front();
  }
  return outcome;
}

void add_owners(std::vector<GpuProcess>& processes) {
  for (auto& process : processes) {
    if (auto uid = posix::process_uid(process.pid)) {
      process.user = posix::user_name(*uid);
      if (process.user.empty()) process.user = "uid " + std::to_string(*uid);
    }
    if (process.name.empty()) process.name = posix::process_name(process.pid);
  }
}

void add_xids(GpuNodeFacts& facts) {
  auto lines = posix::kernel_log_lines("NVRM", 0, kMaxLogLines);
  if (!lines) {
    facts.kernel_log_error = lines.error().message;
    return;
  }
  for (const auto& line : *lines) {
    auto event = gpu::parse_gpu_kernel_line(line.text);
    if (!event) continue;
    event->monotonic_ms = line.monotonic_ms;
    facts.xids.push_back(XidRecord{std::move(*event)});
  }
  if (facts.xids.size() > kMaxXids) facts.xids.erase(facts.xids.begin(), facts.xids.end() - kMaxXids);
}

void add_fabric(GpuNodeFacts& facts) {
  facts.ib_ports = read_ib_ports("");
  facts.peermem_module = loaded_peermem_module("");
  facts.nvswitches = count_nvswitches("");
  if (facts.nvswitches > 0) facts.fabric_manager = process_named("", "nv-fabricmanager");
}

}  // namespace

bool node_has_nvidia_devices() {
  const char* said = std::getenv("MUSTER_NODE_GPUS");
  if (said && (std::string_view(said) == "1" || std::string_view(said) == "0")) return said[0] == '1';
  return posix::path_exists("/dev/nvidiactl");
}

GpuNodeFacts gather_gpu(const GpuGatherOptions& options) {
  GpuNodeFacts facts;
  facts.gpu_devices = node_has_nvidia_devices();
  facts.uptime_ms = posix::monotonic_ms();
  add_fabric(facts);
  add_xids(facts);
  facts.has_nvidia_smi = posix::find_program("nvidia-smi").has_value();
  if (!facts.has_nvidia_smi) return facts;
  std::vector<std::string> fields = health_query_fields();
  auto outcomes = posix::run_commands(
      {query_argv(fields),
       {"nvidia-smi", "--query-compute-apps=gpu_uuid,pid,used_memory,process_name", "--format=csv,noheader,nounits"},
       {"nvidia-smi",
        "--query-remapped-rows=gpu_uuid,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure",
        "--format=csv,noheader,nounits"},
       {"nvidia-smi", "nvlink", "--status"},
       {"nvidia-smi", "nvlink", "--errorcounters"}},
      options.timeout_ms);
  auto health = run_health_query(std::move(outcomes[0]), fields, facts.unknown_fields, options.timeout_ms);
  if (!health.succeeded()) {
    facts.smi_error = posix::describe_failure(health);
    return facts;
  }
  facts.gpus = parse_health_query(health.out, fields);
  if (outcomes[1].succeeded()) {
    facts.processes = parse_compute_apps(outcomes[1].out);
    add_owners(facts.processes);
  }
  // Before A100 there are no remapped rows (the query fails), and GPUs without NVLink print nothing useful.
  if (outcomes[2].succeeded()) merge_remapped_rows(outcomes[2].out, facts.gpus);
  if (outcomes[3].succeeded()) merge_nvlink_status(outcomes[3].out, facts.gpus);
  if (outcomes[4].succeeded()) merge_nvlink_errors(outcomes[4].out, facts.gpus);
  return facts;
}

}  // namespace muster::doctor
