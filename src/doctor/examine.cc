#include "doctor/examine.h"

#include <algorithm>
#include <optional>

#include <fmt/core.h>

#include "cluster/node_set.h"
#include "doctor/bandwidth/findings.h"
#include "doctor/checks/checks.h"
#include "doctor/checks/cache_sharing.h"
#include "doctor/gpu/gpu_checks.h"
#include "doctor/gpu/gpu_op.h"
#include "doctor/node/node_facts.h"
#include "doctor/node/node_ops.h"
#include "doctor/probe_token.h"
#include "head/node_op.h"
#include "head/node_runs.h"
#include "doctor/ssh/matrix.h"
#include "doctor/node/tree_hash.h"
#include "posix/environment.h"
#include "util/random.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

constexpr int kCleanupTimeoutMs = 30'000;
constexpr int kMasterPortSeconds = 8;  // the cross round's bound without the ssh check
constexpr int kGpuRoundTimeoutMs = 20'000;  // nvidia-smi's queries are bounded at 8 s each, a retry or two after

// The cross-node checks of one doctor run: what the facts round writes, the cross round looks for (node/cross_checks.h)
// and the last round removes.
struct CrossRun {
  std::string marker = std::string(kDoctorMarkerPrefix) + random_hex(16);
  std::string token = new_probe_token();
  bool shared_fs = false;
  bool caches = false;
  bool ssh_fast = false;
  int mesh_port = 0;
  int master_port = 0;
};

head::NodeCommand facts_command(const ExamineOptions& flags, const std::vector<std::string>& names,
                                const CrossRun& cross, size_t node) {
  FactsOp op;
  op.gather.python = flags.python;
  op.markers.marker = cross.marker;
  op.markers.node_index = static_cast<int>(node);
  if (cross.shared_fs && node == 0) op.markers.paths = flags.paths;
  op.mark_caches = cross.caches;
  op.gather.paths = flags.paths;
  op.gather.resolve = names;
  op.gather.import_torch = flags.import_torch;
  op.gather.caches = flags.shared_caches;
  op.gather.container_image = flags.container_image;
  op.gather.container_runtime = flags.container_runtime;
  return head::node_op_command(op, flags.job_env);
}

// Facts of every node; a node that could not report gets an error finding instead.
std::vector<NodeFacts> gather_facts(head::AgentPool& pool, const ExamineOptions& flags,
                                    const std::vector<std::string>& names, const CrossRun& cross,
                                    std::vector<Finding>& findings, Error* failure) {
  std::vector<NodeFacts> facts(names.size());
  auto runs = head::run_on_nodes(pool, [&](size_t node) { return facts_command(flags, names, cross, node); },
                                 flags.timeout_ms);
  if (!runs) {
    *failure = runs.error();
    return facts;
  }
  for (size_t i = 0; i < runs->size(); ++i) {
    const auto& run = (*runs)[i];
    try {
      if (!run.ok()) throw std::runtime_error(run.error.empty() ? run.err : run.error);
      facts[i] = nlohmann::json::parse(run.out).get<NodeFacts>();
    } catch (const std::exception& e) {
      findings.push_back({Severity::error, "facts", names[i],
                          fmt::format("could not gather this node's facts: {}", e.what()),
                          "check that the node runs a Linux with /proc and /sys"});
    }
  }
  return facts;
}

void report_ssh(const Result<SshCheck>& check, const std::vector<std::string>& names, SshMatrixMode mode,
                std::vector<Finding>& findings) {
  if (!check) {
    findings.push_back({Severity::warning, "ssh", "", "could not check ssh between nodes: " + check.error().message, ""});
    return;
  }
  for (const auto& pair : check->failed) {
    findings.push_back({Severity::error, "ssh", names[pair.from],
                        fmt::format("`ssh {}` from {} fails (BatchMode: no password prompts){}", names[pair.to],
                                    names[pair.from], pair.reason.empty() ? "" : ": " + pair.reason),
                        "muster setup ssh (or add " + names[pair.from] + "'s public key to " + names[pair.to] +
                            ":~/.ssh/authorized_keys and " + names[pair.to] + "'s host key to " + names[pair.from] +
                            ":~/.ssh/known_hosts)"});
  }
  for (const auto& pair : check->unlinked) {
    findings.push_back({Severity::warning, "tcp-mesh", names[pair.from],
                        fmt::format("{} cannot open a TCP connection to {} at {}", names[pair.from], names[pair.to],
                                    pair.reason),
                        fmt::format("NCCL and gloo connect every pair of ranks on ports like this one: allow TCP "
                                    "between the nodes (firewall on {}?)", names[pair.to])});
  }
  if (check->probe_port > 0 && check->unlinked.empty()) {
    findings.push_back({Severity::ok, "tcp-mesh", "",
                        fmt::format("every node opens TCP connections to every other node (port {}, at the address "
                                    "its ssh uses), as NCCL and gloo do between ranks", check->probe_port),
                        ""});
  }
  if (check->failed.empty()) {
    size_t pairs = names.size() * (names.size() - 1);
    findings.push_back({Severity::ok, "ssh", "",
                        mode == SshMatrixMode::full
                            ? fmt::format("ssh works between all {} ordered pairs of nodes (full matrix: {} "
                                          "handshakes)", pairs, check->handshakes)
                            : fmt::format("ssh works between all {} ordered pairs of nodes (address, host key and "
                                          "authorized key of every pair; {} real handshakes)", pairs,
                                          check->handshakes),
                        ""});
  }
}

// Which nodes see a file that node 0 wrote into each path (in the facts round): one shared filesystem (NFS and the
// like), some nodes sharing it, or node-local everywhere. The statfs type alone cannot tell a bind mount or a
// local disk with identical contents from a share; this test can. `seen[node]`: the cross round's output.
void judge_shared_paths(const std::vector<std::string>& paths, const std::vector<std::string>& names,
                        const std::vector<std::string>& seen, std::vector<Finding>& findings) {
  for (const auto& path : paths) {
    // Node 0 sees its own marker unless it could not write it (a missing or read-only path).
    if (seen[0].find("seen " + path + "\n") == std::string::npos) continue;
    std::vector<std::string> sharing, local;
    for (size_t node = 0; node < names.size(); ++node) {
      bool sees = seen[node].find("seen " + path + "\n") != std::string::npos;
      (sees ? sharing : local).push_back(names[node]);
    }
    if (local.empty()) {
      findings.push_back({Severity::ok, "shared-fs", "",
                          fmt::format("{}: one shared filesystem (a file written on {} is seen on every node)", path,
                                      names[0]), ""});
    } else if (sharing.size() == 1) {
      findings.push_back({Severity::ok, "shared-fs", "",
                          fmt::format("{}: node-local on every node (no shared filesystem)", path),
                          fmt::format("keep it identical everywhere: muster sync {}, or mount one share there", path)});
    } else {
      findings.push_back({Severity::warning, "shared-fs", "",
                          fmt::format("{}: shared by {} but not by {}", path, cluster::fold_nodes(sharing), cluster::fold_nodes(local)),
                          fmt::format("mount the same share at {} on {}", path, cluster::fold_nodes(local))});
    }
  }
}

// The line of the cross round's output that starts with `tag` (without it), nullopt when there is none.
std::optional<std::string> line_of(const std::string& out, std::string_view tag) {
  for (auto line : split_lines(out)) {
    if (line.rfind(tag, 0) == 0) return std::string(line.substr(tag.size()));
  }
  return std::nullopt;
}

// Node 0 listened on the port while every other node connected to the address the head reached node 0 on (what
// launch uses as MASTER_ADDR): the port is free there and no firewall is in the way.
void judge_master_port(const std::vector<std::string>& names, const std::string& address, int port,
                       const std::vector<head::NodeRun>& runs, std::vector<Finding>& findings) {
  if (auto taken = line_of(runs[0].out, "master in-use ")) {
    findings.push_back({Severity::error, "master-port", names[0],
                        fmt::format("port {} is taken on {} (MASTER_ADDR's node): {}", port, names[0], *taken),
                        fmt::format("stop what listens there (ss -ltnp 'sport = :{}'), or use another port "
                                    "(muster launch picks a free one by itself)", port)});
    return;
  }
  bool all = true;
  for (size_t node = 1; node < runs.size(); ++node) {
    if (line_of(runs[node].out, "master reached")) continue;
    all = false;
    auto why = line_of(runs[node].out, "master unreachable ");
    findings.push_back({Severity::error, "master-port", names[node],
                        fmt::format("{} cannot reach {}:{} ({}): {}", names[node], address, port, names[0],
                                    why ? *why : runs[node].error.empty() ? "no answer" : runs[node].error),
                        fmt::format("allow TCP from the cluster's nodes to {} (a firewall?)", names[0])});
  }
  if (all) {
    findings.push_back({Severity::ok, "master-port", "",
                        fmt::format("port {} is free on {} and every node reaches {}:{}", port, names[0], address,
                                    port), ""});
  }
}

// The cross round (node/cross_checks.h): on every node at once, the fast ssh check, the markers of the shared paths
// and caches, and the master port.
Result<std::vector<head::NodeRun>> run_cross_round(head::AgentPool& pool, const std::vector<std::string>& names,
                                                   const ExamineOptions& options, const std::vector<NodeFacts>& facts,
                                                   const CrossRun& cross, const std::string& master_address) {
  int seconds = cross.ssh_fast ? fast_check_seconds(names.size()) : kMasterPortSeconds;
  return head::run_on_nodes(pool, [&](size_t node) {
    CrossOp op;
    op.cross.marker = cross.marker;
    op.cross.seconds = seconds;
    if (cross.ssh_fast) add_fast_check(op.cross, names, node, cross.mesh_port);
    if (cross.shared_fs) op.cross.seen_paths = options.paths;
    if (cross.caches) {
      for (const auto& cache : facts[node].caches) {
        op.cross.cache_dirs.push_back(cache.probe.empty() ? "/nonexistent" : cache.probe);
      }
    }
    if (cross.master_port > 0 && node == 0) {
      op.cross.master_listen = cross.master_port;
      op.cross.master_expect = static_cast<int>(names.size() - 1);
    } else if (cross.master_port > 0) {
      op.master_connect = fmt::format("{}:{}", master_address, cross.master_port);
    }
    return head::node_op_command(op, {std::string(kProbeTokenEnv) + "=" + cross.token});
  }, fast_check_timeout_ms(names.size()));
}

// Removes the markers of the facts round: node 0's in the shared paths, every node's in its caches.
void remove_markers(head::AgentPool& pool, const ExamineOptions& options, const std::vector<NodeFacts>& facts,
                    const CrossRun& cross) {
  if (!cross.shared_fs && !cross.caches) return;
  const char* script = "for f; do rm -f \"$f\"; done";
  (void)head::run_on_nodes(pool, [&](size_t node) {
    std::vector<std::string> argv = {"sh", "-c", script, "sh"};
    if (cross.shared_fs && node == 0) {
      for (const auto& path : options.paths) argv.push_back(path + "/" + cross.marker);
    }
    if (cross.caches) {
      for (const auto& cache : facts[node].caches) {
        if (!cache.probe.empty()) argv.push_back(fmt::format("{}/{}-{}", cache.probe, cross.marker, node));
      }
    }
    return head::NodeCommand{argv, {}};
  }, kCleanupTimeoutMs);
}

// The GPU round: `muster node gpu` on every node (doctor/gpu/gpu_op.h). A node that could not report gets an error
// finding and empty facts.
std::vector<GpuNodeFacts> gather_gpu_facts(head::AgentPool& pool, const std::vector<std::string>& names,
                                           std::vector<Finding>& findings, Error* failure) {
  std::vector<GpuNodeFacts> gpu(names.size());
  auto runs = head::run_on_nodes(pool, [&](size_t) { return head::node_op_command(GpuOp{}); }, kGpuRoundTimeoutMs);
  if (!runs) {
    *failure = runs.error();
    return gpu;
  }
  for (size_t i = 0; i < runs->size(); ++i) {
    const auto& run = (*runs)[i];
    try {
      if (!run.ok()) throw std::runtime_error(run.error.empty() ? run.err : run.error);
      gpu[i] = nlohmann::json::parse(run.out).get<GpuNodeFacts>();
    } catch (const std::exception& e) {
      findings.push_back({Severity::error, "gpu", names[i],
                          fmt::format("could not gather this node's GPU facts: {}", e.what()),
                          "run `muster node gpu` on the node by hand to see why"});
    }
  }
  return gpu;
}

}  // namespace

bool wants_gpu_round(GpuRound mode, const std::vector<NodeFacts>& facts) {
  if (mode == GpuRound::always) return true;
  return mode == GpuRound::when_present &&
         std::any_of(facts.begin(), facts.end(),
                     [](const NodeFacts& node) { return node.has_nvidia_smi || !node.gpus.empty(); });
}

std::vector<std::string> default_job_cache_env() {
  std::vector<std::string> out;
  for (const auto& text : posix::current_environment()) {
    std::string name = text.substr(0, text.find('='));
    const auto& names = cache_variables();
    if (propagated_by_default(name) && std::find(names.begin(), names.end(), name) != names.end()) out.push_back(text);
  }
  return out;
}

Result<Examination> examine(head::AgentPool& pool, const std::vector<std::string>& names,
                            const ExamineOptions& options) {
  Examination examination;
  std::vector<Finding>& findings = examination.findings;
  bool several = names.size() > 1;
  CrossRun cross;
  cross.shared_fs = options.shared_fs && several;
  cross.caches = options.shared_caches && several;
  cross.ssh_fast = options.ssh_matrix == SshMatrixMode::fast && several;
  cross.master_port = several ? options.master_port : 0;
  cross.mesh_port = pick_mesh_port(cross.master_port);
  Error failure;
  auto facts = gather_facts(pool, options, names, cross, findings, &failure);
  if (!failure.message.empty()) return failure;
  if (cross.ssh_fast || cross.shared_fs || cross.caches || cross.master_port > 0) {
    std::string master_address = pool.hello(0).ssh_addr.empty() ? "127.0.0.1" : pool.hello(0).ssh_addr;
    auto runs = run_cross_round(pool, names, options, facts, cross, master_address);
    remove_markers(pool, options, facts, cross);
    if (!runs) return runs.error();
    std::vector<std::string> outputs;
    for (const auto& run : *runs) outputs.push_back(run.out);
    if (cross.ssh_fast) {
      auto check = judge_fast_check(pool, names, *runs, cross.mesh_port);
      report_ssh(check, names, SshMatrixMode::fast, findings);
      if (check) examination.ssh = std::move(*check);
    }
    if (cross.shared_fs) judge_shared_paths(options.paths, names, outputs, findings);
    if (cross.master_port > 0) judge_master_port(names, master_address, cross.master_port, *runs, findings);
    if (cross.caches) {
      for (auto& finding : judge_cache_sharing(names, facts, cache_markers_seen(facts, outputs))) {
        findings.push_back(std::move(finding));
      }
    }
  }
  if (options.ssh_matrix == SshMatrixMode::full && several) {
    auto check = check_ssh_pairs(pool, names, SshMatrixMode::full);
    report_ssh(check, names, SshMatrixMode::full, findings);
    if (check) examination.ssh = std::move(*check);
  }
  CheckOptions checks;
  checks.code_paths = options.paths;
  checks.slots_per_node = options.slots_per_node;
  for (auto& finding : run_checks(names, facts, checks)) findings.push_back(std::move(finding));
  if (options.bandwidth && names.size() > 1) {
    auto measured = measure_bandwidth(pool, facts, *options.bandwidth);
    if (!measured) return measured.error();
    for (auto& finding : check_bandwidth(names, *measured)) findings.push_back(std::move(finding));
    examination.bandwidth = std::move(*measured);
  }
  if (wants_gpu_round(options.gpu, facts)) {
    examination.gpu = gather_gpu_facts(pool, names, findings, &failure);
    if (!failure.message.empty()) return failure;
    for (auto& finding : check_gpu_health(names, examination.gpu, facts)) findings.push_back(std::move(finding));
  }
  examination.facts = std::move(facts);
  return examination;
}

Result<std::vector<Finding>> examine_findings(head::AgentPool& pool, const std::vector<std::string>& names,
                                             const ExamineOptions& options) {
  auto examination = examine(pool, names, options);
  if (!examination) return examination.error();
  return std::move(examination->findings);
}

}  // namespace muster::doctor
