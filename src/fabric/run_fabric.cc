// `muster doctor --fabric` (run_fabric.h).
#include "fabric/run_fabric.h"

#include <cstdlib>

#include <fmt/format.h>

#include "doctor/checks/report.h"
#include "fabric/measurement.h"
#include "fabric/sweep_script.h"
#include "fabric/verdict.h"
#include "launch/launch_request.h"
#include "launch/launcher.h"
#include "posix/file.h"
#include "posix/terminal.h"

namespace muster::fabric {
namespace {

// The ring's sizes: from small (latency) to 16 MiB (bandwidth; a slow 100 Mbit/s link takes ~2 s each); the
// pairs' size: 4 MiB.
constexpr const char* kRingSizes = "262144,1048576,4194304,16777216";
constexpr const char* kPairBytes = "4194304";
constexpr size_t kMaxLogBytes = 1 << 20;

launch::LaunchRequest sweep_request(const FabricOptions& options) {
  launch::LaunchRequest request;
  request.hosts = options.connect.hosts;
  // One rank per node (the links between nodes) unless asked for more: --nproc-per-node 8 on one node measures
  // its GPUs' NVLink.
  if (request.hosts.selection.nproc_per_node <= 0) request.hosts.selection.nproc_per_node = 1;
  request.connect_timeout_s = options.connect.connect_timeout_s;
  request.ssh_config = options.connect.ssh_config;
  request.ssh_kex = options.connect.ssh_kex;
  request.job.command = {options.python, "-c", std::string(sweep_script_text()), kRingSizes,
                         fmt::format("{}", options.seconds), kPairBytes};
  request.job.fanout = options.connect.fanout;
  request.hang_timeout_s = 120;
  return request;
}

}  // namespace

Result<int> run_fabric(const FabricOptions& options) {
  auto request = sweep_request(options);
  auto resolved = launch::resolve_launch(request);
  if (!resolved) return resolved.error();
  std::string run_dir = "muster-runs/" + resolved->job_id;  // the ranks' logs and manifest, kept like a job's
  resolved->run_dir = run_dir;
  resolved->ranks_shown = "none";  // the ranks' lines stay in their logs; the report is doctor's
  resolved->quiet = true;
  std::vector<std::string> names;  // by rank: the node, or node/local rank when a node has several
  for (const auto& node : resolved->plan.nodes) {
    for (size_t local = 0; local < node.ranks.size(); ++local) {
      names.push_back(node.ranks.size() == 1 ? node.host.name : fmt::format("{}/{}", node.host.name, local));
    }
  }
  auto code = launch::run_launch(*resolved);
  if (!code) return code.error();
  auto log = posix::read_file_tail(run_dir + "/rank-0.log", kMaxLogBytes);
  if (*code != 0 || !log) {
    return make_error(ErrorKind::io, "the all_reduce sweep failed (exit {}): see the ranks' logs in {}", *code, run_dir);
  }
  auto measurement = parse_measurement(*log);
  if (!measurement) {
    return make_error(ErrorKind::io, "{} (the ranks' logs: {})", measurement.error().message, run_dir);
  }
  FabricVerdict verdict = judge_fabric(*measurement, names);
  if (options.json) {
    auto report = doctor::report_json(verdict.findings, names);
    report["fabric"] = measurement_json(*measurement, names);
    report["fabric"]["slow_nodes"] = verdict.slow_nodes;
    report["fabric"]["slow_links"] = verdict.slow_links;
    fmt::print("{}\n", report.dump(2));
  } else {
    bool color = posix::is_terminal(1) && std::getenv("NO_COLOR") == nullptr;
    fmt::print("{}", doctor::format_report(verdict.findings, names, color));
  }
  return doctor::exit_code(verdict.findings);
}

}  // namespace muster::fabric
