// `muster doctor`: gathers every node's facts at once (`muster node facts`, run through the agent pool),
// checks ssh between every ordered pair of nodes, compares the facts across nodes (doctor/checks.h) and
// prints what to fix per node. Exit 0 all good, 1 warnings, 2 errors (see doctor/report.h).
#include <filesystem>
#include <optional>
#include <random>

#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/node_pool.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "doctor/checks.h"
#include "doctor/node_facts.h"
#include "doctor/report.h"
#include "head/node_runs.h"
#include "head/ssh_matrix.h"
#include "posix/signals.h"
#include "posix/terminal.h"

namespace muster::cli {
namespace {

constexpr int kFactsTimeoutMs = 30'000;

struct DoctorFlags {
  PoolFlags pool;
  std::string python = "python3";
  std::vector<std::string> paths;
  bool json = false;
  bool no_ssh_matrix = false;
  bool import_torch = false;
};

head::NodeCommand facts_command(const DoctorFlags& flags, const std::vector<std::string>& names) {
  std::vector<std::string> argv = {head::kNodeMuster, "node", "facts", "--python", flags.python};
  for (const auto& path : flags.paths) argv.insert(argv.end(), {"--path", path});
  for (const auto& name : names) argv.insert(argv.end(), {"--resolve", name});
  if (flags.import_torch) argv.push_back("--import-torch");
  return head::NodeCommand{argv, {}};
}

// Facts of every node; a node that could not report gets an error finding instead.
std::vector<doctor::NodeFacts> gather_facts(head::AgentPool& pool, const DoctorFlags& flags,
                                            const std::vector<std::string>& names,
                                            std::vector<doctor::Finding>& findings, Error* failure) {
  std::vector<doctor::NodeFacts> facts(names.size());
  auto runs = head::run_on_nodes(pool, [&](size_t) { return facts_command(flags, names); }, kFactsTimeoutMs);
  if (!runs) {
    *failure = runs.error();
    return facts;
  }
  for (size_t i = 0; i < runs->size(); ++i) {
    const auto& run = (*runs)[i];
    try {
      if (!run.ok()) throw std::runtime_error(run.error.empty() ? run.err : run.error);
      facts[i] = nlohmann::json::parse(run.out).get<doctor::NodeFacts>();
    } catch (const std::exception& e) {
      findings.push_back({doctor::Severity::error, "facts", names[i],
                          fmt::format("could not gather this node's facts: {}", e.what()),
                          "check that the node runs a Linux with /proc and /sys"});
    }
  }
  return facts;
}

void check_ssh(head::AgentPool& pool, const std::vector<std::string>& names, std::vector<doctor::Finding>& findings) {
  auto failed = head::failed_ssh_pairs(pool, names);
  if (!failed) {
    findings.push_back({doctor::Severity::warning, "ssh", "", "could not check ssh between nodes: " + failed.error().message, ""});
    return;
  }
  for (const auto& pair : *failed) {
    findings.push_back({doctor::Severity::error, "ssh", names[pair.from],
                        fmt::format("`ssh {}` from {} fails (BatchMode: no password prompts)", names[pair.to], names[pair.from]),
                        "muster setup ssh (or add " + names[pair.from] + "'s public key to " + names[pair.to] +
                            ":~/.ssh/authorized_keys)"});
  }
  if (failed->empty()) {
    findings.push_back({doctor::Severity::ok, "ssh", "",
                        fmt::format("ssh works between all {} ordered pairs of nodes", names.size() * (names.size() - 1)), ""});
  }
}

// Which nodes see a file that node 0 writes into each path: one shared filesystem (NFS and the like), some
// nodes sharing it, or node-local everywhere. The statfs type alone cannot tell a bind mount or a local disk
// with identical contents from a share; this test can.
void check_shared_paths(head::AgentPool& pool, const std::vector<std::string>& paths,
                        const std::vector<std::string>& names, std::vector<doctor::Finding>& findings) {
  std::random_device random;
  std::string token = fmt::format(".muster-doctor-{:08x}{:08x}", random(), random());
  const char* write = "for p; do [ -d \"$p\" ] && : >\"$p/$T\" 2>/dev/null && echo \"wrote $p\"; done; true";
  const char* read = "for p; do [ -e \"$p/$T\" ] && echo \"seen $p\"; done; true";
  const char* remove = "for p; do rm -f \"$p/$T\"; done";
  auto on_node = [&](const char* script, std::optional<size_t> only) {
    return head::run_on_nodes(pool, [&](size_t node) {
      std::vector<std::string> argv = {"sh", "-c", script, "sh"};
      if (!only || *only == node) argv.insert(argv.end(), paths.begin(), paths.end());
      return head::NodeCommand{argv, {"T=" + token}};
    }, kFactsTimeoutMs);
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
      findings.push_back({doctor::Severity::ok, "shared-fs", "",
                          fmt::format("{}: one shared filesystem (a file written on {} is seen on every node)", path,
                                      names[0]), ""});
    } else if (sharing.size() == 1) {
      findings.push_back({doctor::Severity::ok, "shared-fs", "",
                          fmt::format("{}: node-local on every node (no shared filesystem)", path),
                          fmt::format("keep it identical everywhere: muster sync {}, or mount one share there", path)});
    } else {
      findings.push_back({doctor::Severity::warning, "shared-fs", "",
                          fmt::format("{}: shared by {} but not by {}", path, join(sharing), join(local)),
                          fmt::format("mount the same share at {} on {}", path, join(local))});
    }
  }
}

}  // namespace

int run_doctor(const std::vector<std::string>& args) {
  auto app = make_app("doctor", "Check the whole cluster and say what to fix, per node: names, ssh between every pair "
                                "of nodes, versions, code, shared filesystems, network interfaces for NCCL/gloo, "
                                "shm/memlock, GPUs, clocks.");
  DoctorFlags flags;
  add_host_options(*app, flags.pool.hosts);
  add_pool_flags(*app, flags.pool);
  app->add_option("--python", flags.python, "the interpreter the job will use (default python3 in PATH)");
  app->add_option("--path", flags.paths, "a code or data directory that must be identical on every node "
                                         "(default: the current directory)");
  app->add_flag("--json", flags.json, "print the findings as JSON (schema in doctor/report.h)");
  app->add_flag("--import-torch", flags.import_torch,
                "import torch on every node to check that it sees the GPUs and its NCCL (~1.5 s of CPU per node)");
  app->add_flag("--no-ssh-matrix", flags.no_ssh_matrix, "skip the N×N node-to-node ssh check");
  if (auto code = parse_command_line(*app, args)) return *code;
  if (flags.paths.empty()) flags.paths.push_back(std::filesystem::current_path().string());

  posix::SignalBlock signals;
  std::vector<std::string> names;
  auto pool = connect_pool(flags.pool, names);
  if (!pool) return report_error(pool.error());
  std::vector<doctor::Finding> findings;
  Error failure;
  auto facts = gather_facts(**pool, flags, names, findings, &failure);
  if (!failure.message.empty()) return report_error(failure);
  if (!flags.no_ssh_matrix && names.size() > 1) check_ssh(**pool, names, findings);
  if (names.size() > 1) check_shared_paths(**pool, flags.paths, names, findings);
  (*pool)->shutdown(3000);

  doctor::CheckOptions options;
  options.code_paths = flags.paths;
  options.slots_per_node = flags.pool.hosts.selection.nproc_per_node;
  for (auto& finding : doctor::run_checks(names, facts, options)) findings.push_back(std::move(finding));
  if (flags.json) {
    fmt::print("{}\n", doctor::report_json(findings, names).dump(2));
  } else {
    bool color = posix::is_terminal(1) && std::getenv("NO_COLOR") == nullptr;
    fmt::print("{}", doctor::format_report(findings, names, color));
  }
  return doctor::exit_code(findings);
}

}  // namespace muster::cli
