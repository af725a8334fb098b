#include "telemetry/prometheus.h"

#include <map>
#include <vector>

#include <fmt/core.h>

namespace muster::telemetry {
namespace {

struct Family {
  const char* name;
  const char* key;
  double scale;
  const char* help;
};

constexpr Family kRankFamilies[] = {
    {"muster_rank_steps_per_second", "steps_per_s", 1, "Training steps per second of the rank."},
    {"muster_rank_step_seconds_p50", "step_p50_ms", 1e-3, "Median step time of the rank."},
    {"muster_rank_step_seconds_p95", "step_p95_ms", 1e-3, "95th percentile step time of the rank."},
    {"muster_rank_compute_seconds", "compute_ms", 1e-3, "Compute per step: step time minus time waiting for other ranks."},
    {"muster_rank_wait_seconds", "wait_ms", 1e-3, "Time per step waiting for the other ranks (collectives)."},
    {"muster_rank_compute_gap_ratio", "gap", 1, "Compute per step against the median of the other ranks, minus 1."},
    {"muster_rank_cpu_ratio", "cpu", 0.01, "CPU time of the rank's process, in cores."},
    {"muster_rank_runqueue_ratio", "runq", 0.01, "Time the rank's threads were runnable but waiting for a CPU."},
    {"muster_rank_cpu_throttled_ratio", "throttled", 0.01, "Share of time the rank's CPU cgroup was throttled."},
};
constexpr Family kNodeFamilies[] = {
    {"muster_node_cpu_busy_ratio", "cpu", 0.01, "Busy share of the node's CPUs."},
    {"muster_node_cpu_steal_ratio", "steal", 0.01, "Share of CPU time stolen by the hypervisor."},
    {"muster_node_cpu_other_ratio", "other_cpu", 0.01, "CPU used outside the job, in cores."},
    {"muster_node_memory_used_bytes", "mem_used_gib", 1073741824.0, "Memory in use."},
    {"muster_node_swap_used_bytes", "swap_used_gib", 1073741824.0, "Swap in use."},
    {"muster_node_swap_pages_per_second", "swap_pages_s", 1, "Pages swapped in and out per second."},
    {"muster_node_load1", "load1", 1, "One-minute load average."},
    {"muster_node_network_receive_bytes_per_second", "net_rx_mbs", 1e6, "Bytes received per second on the job's interface."},
    {"muster_node_network_transmit_bytes_per_second", "net_tx_mbs", 1e6, "Bytes sent per second on the job's interface."},
    {"muster_node_disk_read_bytes_per_second", "disk_read_mbs", 1e6, "Bytes read per second from the node's disks."},
    {"muster_node_disk_write_bytes_per_second", "disk_write_mbs", 1e6, "Bytes written per second to the node's disks."},
};
constexpr Family kGpuFamilies[] = {
    {"muster_gpu_utilization_ratio", "util", 0.01, "GPU utilisation."},
    {"muster_gpu_memory_used_bytes", "mem_used_gib", 1073741824.0, "GPU memory in use."},
    {"muster_gpu_power_watts", "power_w", 1, "GPU power draw."},
    {"muster_gpu_temperature_celsius", "temp_c", 1, "GPU temperature."},
    {"muster_gpu_sm_clock_hertz", "sm_mhz", 1e6, "GPU SM clock."},
};

std::string escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void family(std::string& out, const Family& f, const std::vector<std::pair<std::string, const nlohmann::json*>>& rows) {
  std::string samples;
  for (const auto& [labels, row] : rows) {
    auto it = row->find(f.key);
    if (it == row->end() || !it->is_number()) continue;
    samples += fmt::format("{}{{{}}} {}\n", f.name, labels, it->get<double>() * f.scale);
  }
  if (samples.empty()) return;
  out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", f.name, f.help, f.name);
  out += samples;
}

}  // namespace

std::string prometheus_text(const nlohmann::json& snapshot, const std::string& job_id) {
  std::string job = escape(job_id);
  std::vector<std::pair<std::string, const nlohmann::json*>> nodes, ranks, gpus;
  std::vector<std::string> gpu_labels;
  if (snapshot.contains("nodes")) {
    for (const auto& node : snapshot["nodes"]) {
      std::string name = escape(node.value("node", ""));
      nodes.emplace_back(fmt::format("job=\"{}\",node=\"{}\"", job, name), &node);
      if (node.contains("rank_rows")) {
        for (const auto& rank : node["rank_rows"]) {
          ranks.emplace_back(fmt::format("job=\"{}\",node=\"{}\",rank=\"{}\"", job, name, rank.value("rank", 0)), &rank);
        }
      }
      if (node.contains("gpus")) {
        for (const auto& gpu : node["gpus"]) {
          gpus.emplace_back(fmt::format("job=\"{}\",node=\"{}\",gpu=\"{}\"", job, name, gpu.value("index", 0)), &gpu);
        }
      }
    }
  }
  std::string out;
  for (const auto& f : kRankFamilies) family(out, f, ranks);
  for (const auto& f : kNodeFamilies) family(out, f, nodes);
  for (const auto& f : kGpuFamilies) family(out, f, gpus);
  out += "# HELP muster_straggler 1 for a rank named a straggler.\n# TYPE muster_straggler gauge\n";
  for (const auto& [labels, row] : ranks) out += fmt::format("muster_straggler{{{}}} {}\n", labels, row->value("straggler", false) ? 1 : 0);
  double rate = snapshot.contains("steps_per_s") && snapshot["steps_per_s"].is_number() ? snapshot["steps_per_s"].get<double>() : 0;
  out += fmt::format("# HELP muster_job_steps_per_second Steps per second of the job (median over its ranks).\n"
                     "# TYPE muster_job_steps_per_second gauge\nmuster_job_steps_per_second{{job=\"{}\"}} {}\n",
                     job, rate);
  return out;
}

}  // namespace muster::telemetry
