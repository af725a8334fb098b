#include "doctor/diagnose.h"

#include <algorithm>
#include <optional>

#include <fmt/core.h>

#include "doctor/bandwidth_check.h"
#include "doctor/checks.h"
#include "doctor/diagnose_caches.h"
#include "doctor/node_facts.h"
#include "doctor/probe_token.h"
#include "head/node_runs.h"
#include "doctor/ssh_matrix.h"
#include "posix/environment.h"
#include "util/random.h"

namespace muster::doctor {
namespace {

constexpr int kNodeCommandTimeoutMs = 30'000;  // the shared-filesystem and master-port rounds

head::NodeCommand facts_command(const DiagnoseOptions& flags, const std::vector<std::string>& names) {
  std::vector<std::string> argv = {head::kNodeMuster, "node", "facts", "--python", flags.python};
  for (const auto& path : flags.paths) argv.insert(argv.end(), {"--path", path});
  for (const auto& name : names) argv.insert(argv.end(), {"--resolve", name});
  if (flags.import_torch) argv.push_back("--import-torch");
  if (flags.shared_caches) argv.push_back("--caches");
  if (!flags.container_image.empty()) argv.insert(argv.end(), {"--container-image", flags.container_image});
  if (!flags.container_runtime.empty()) argv.insert(argv.end(), {"--container-runtime", flags.container_runtime});
  return head::NodeCommand{argv, flags.job_env};
}

// Facts of every node; a node that could not report gets an error finding instead.
std::vector<NodeFacts> gather_facts(head::AgentPool& pool, const DiagnoseOptions& flags,
                                            const std::vector<std::string>& names,
                                            std::vector<Finding>& findings, Error* failure) {
  std::vector<NodeFacts> facts(names.size());
  auto runs = head::run_on_nodes(pool, [&](size_t) { return facts_command(flags, names); }, flags.timeout_ms);
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

void check_ssh(head::AgentPool& pool, const std::vector<std::string>& names, SshMatrixMode mode,
               std::vector<Finding>& findings) {
  auto check = check_ssh_pairs(pool, names, mode);
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

// Which nodes see a file that node 0 writes into each path: one shared filesystem (NFS and the like), some
// nodes sharing it, or node-local everywhere. The statfs type alone cannot tell a bind mount or a local disk
// with identical contents from a share; this test can.
void check_shared_paths(head::AgentPool& pool, const std::vector<std::string>& paths,
                        const std::vector<std::string>& names, std::vector<Finding>& findings) {
  std::string token = ".muster-doctor-" + random_hex(16);
  const char* write = "for p; do [ -d \"$p\" ] && : >\"$p/$T\" 2>/dev/null && echo \"wrote $p\"; done; true";
  const char* read = "for p; do [ -e \"$p/$T\" ] && echo \"seen $p\"; done; true";
  const char* remove = "for p; do rm -f \"$p/$T\"; done";
  auto on_node = [&](const char* script, std::optional<size_t> only) {
    return head::run_on_nodes(pool, [&](size_t node) {
      std::vector<std::string> argv = {"sh", "-c", script, "sh"};
      if (!only || *only == node) argv.insert(argv.end(), paths.begin(), paths.end());
      return head::NodeCommand{argv, {"T=" + token}};
    }, kNodeCommandTimeoutMs);
  };
  auto wrote = on_node(write, 0);
  auto seen = on_node(read, std::nullopt);
  (void)on_node(remove, 0);
  if (!wrote || !seen) return;
  for (const auto& path : paths) {
    if ((*wrote)[0].out.find("wrote " + path + "\n") == std::string::npos) continue;  // missing or read-only
    std::vector<std::string> sharing, local;
    for (size_t node = 0; node < names.size(); ++node) {
      bool sees = (*seen)[node].out.find("seen " + path + "\n") != std::string::npos;
      (sees ? sharing : local).push_back(names[node]);
    }
    auto join = [](const std::vector<std::string>& list) {
      std::string text;
      for (const auto& item : list) text += (text.empty() ? "" : ", ") + item;
      return text;
    };
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
                          fmt::format("{}: shared by {} but not by {}", path, join(sharing), join(local)),
                          fmt::format("mount the same share at {} on {}", path, join(local))});
    }
  }
}

// Node 0 listens on the port while every other node connects to the address the head reached node 0 on
// (what launch uses as MASTER_ADDR): the port is free there and no firewall is in the way.
void check_master_port(head::AgentPool& pool, const std::vector<std::string>& names, int port,
                       std::vector<Finding>& findings) {
  std::string address = pool.hello(0).ssh_addr.empty() ? "127.0.0.1" : pool.hello(0).ssh_addr;
  std::string token = new_probe_token();  // only this run's nodes count (probe_token.h)
  auto runs = head::run_on_nodes(pool, [&](size_t node) {
    std::vector<std::string> argv = {head::kNodeMuster, "node", "port", "--seconds", "8"};
    if (node == 0) {
      argv.insert(argv.end(), {"--listen", std::to_string(port), "--expect", std::to_string(names.size() - 1)});
    } else {
      argv.insert(argv.end(), {"--connect", address, "--port", std::to_string(port)});
    }
    return head::NodeCommand{argv, {std::string(kProbeTokenEnv) + "=" + token}};
  }, kNodeCommandTimeoutMs);
  if (!runs) return;
  std::string master = (*runs)[0].out;
  if (master.rfind("in-use ", 0) == 0) {
    findings.push_back({Severity::error, "master-port", names[0],
                        fmt::format("port {} is taken on {} (MASTER_ADDR's node): {}", port, names[0],
                                    master.substr(7, master.find('\n') - 7)),
                        fmt::format("stop what listens there (ss -ltnp 'sport = :{}'), or use another port "
                                    "(muster launch picks a free one by itself)", port)});
    return;
  }
  bool all = true;
  for (size_t node = 1; node < runs->size(); ++node) {
    const std::string& out = (*runs)[node].out;
    if (out.rfind("reached", 0) == 0) continue;
    all = false;
    findings.push_back({Severity::error, "master-port", names[node],
                        fmt::format("{} cannot reach {}:{} ({}): {}", names[node], address, port, names[0],
                                    out.empty() ? (*runs)[node].error : out.substr(0, out.find('\n'))),
                        fmt::format("allow TCP from the cluster's nodes to {} (a firewall?)", names[0])});
  }
  if (all) {
    findings.push_back({Severity::ok, "master-port", "",
                        fmt::format("port {} is free on {} and every node reaches {}:{}", port, names[0], address,
                                    port), ""});
  }
}

}  // namespace

std::vector<std::string> default_job_cache_env() {
  std::vector<std::string> out;
  for (const auto& text : posix::current_environment()) {
    std::string name = text.substr(0, text.find('='));
    const auto& names = cache_variables();
    if (propagated_by_default(name) && std::find(names.begin(), names.end(), name) != names.end()) out.push_back(text);
  }
  return out;
}

Result<Diagnosis> diagnose_all(head::AgentPool& pool, const std::vector<std::string>& names,
                               const DiagnoseOptions& options) {
  Diagnosis diagnosis;
  std::vector<Finding>& findings = diagnosis.findings;
  Error failure;
  auto facts = gather_facts(pool, options, names, findings, &failure);
  if (!failure.message.empty()) return failure;
  if (options.ssh_matrix != SshMatrixMode::off && names.size() > 1) check_ssh(pool, names, options.ssh_matrix, findings);
  if (options.shared_fs && names.size() > 1) check_shared_paths(pool, options.paths, names, findings);
  if (options.master_port > 0 && names.size() > 1) check_master_port(pool, names, options.master_port, findings);
  if (options.shared_caches && names.size() > 1) check_shared_caches(pool, names, facts, findings);
  CheckOptions checks;
  checks.code_paths = options.paths;
  checks.slots_per_node = options.slots_per_node;
  for (auto& finding : run_checks(names, facts, checks)) findings.push_back(std::move(finding));
  if (options.bandwidth && names.size() > 1) {
    auto measured = measure_bandwidth(pool, facts, *options.bandwidth);
    if (!measured) return measured.error();
    for (auto& finding : check_bandwidth(names, *measured)) findings.push_back(std::move(finding));
    diagnosis.bandwidth = std::move(*measured);
  }
  return diagnosis;
}

Result<std::vector<Finding>> diagnose(head::AgentPool& pool, const std::vector<std::string>& names,
                                              const DiagnoseOptions& options) {
  auto diagnosis = diagnose_all(pool, names, options);
  if (!diagnosis) return diagnosis.error();
  return std::move(diagnosis->findings);
}

}  // namespace muster::doctor
