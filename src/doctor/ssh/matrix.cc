#include "doctor/ssh/matrix.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/core.h>

#include "doctor/node/node_ops.h"
#include "doctor/probe_token.h"
#include "doctor/ssh/pairs.h"
#include "util/random.h"
#include "head/node_op.h"
#include "head/node_runs.h"

namespace muster::doctor {
namespace {

// A minute, and a second more per node: the full matrix of 64 nodes is 4,032 handshakes on one machine's cores.
int matrix_timeout_ms(size_t nodes) { return 60'000 + 1'000 * static_cast<int>(nodes); }

}  // namespace

int fast_check_timeout_ms(size_t nodes) { return matrix_timeout_ms(nodes); }

namespace {

// Up to kParallel attempts at once per node (one at a time took 1.6 s for 7 peers on a loaded testbed), below
// sshd's default MaxStartups (10 unauthenticated connections): every node starts at its next neighbour, so a
// node is the target of at most kParallel nodes at a time. The first attempt asks for a classic key exchange:
// OpenSSH 9's default (sntrup761x25519, post-quantum) costs several times the CPU, 6.0 s against 1.4 s for the
// 8-node matrix on the testbed, and the question here is authentication, not the cipher. A failed first
// attempt is retried with the user's own settings, so an sshd or a client policy that refuses these
// algorithms (or a connection dropped by MaxStartups) never counts as a broken pair.
constexpr int kParallel = 8;
const char* const kScript =
    "t() { ssh -o BatchMode=yes -o ConnectTimeout=5 \"$@\" true </dev/null >/dev/null 2>&1; }; n=0; "
    "for h; do (if t -o KexAlgorithms=\"$K\" \"$h\" || t \"$h\"; then echo \"ok $h\"; else echo \"fail $h\"; fi) & "
    "n=$((n + 1)); if [ \"$n\" -ge \"$P\" ]; then wait; n=0; fi; done; wait";
const char* const kFastKex = "curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256";

// The bound on a node's connection round: 10 s, and half a second more per node (on a testbed all nodes share the
// head's cores: 64 nodes make 4,032 connections there). A peer not linked in time gets a real ssh.
int reach_seconds(size_t nodes) { return 10 + static_cast<int>(nodes) / 2; }

// The real handshakes: `targets(node)` are the peers node tries; returns, per node, the peers that worked.
Result<std::vector<std::set<std::string>>> real_ssh(head::AgentPool& pool,
                                                    const std::function<std::vector<std::string>(size_t)>& targets) {
  auto runs = head::run_on_nodes(pool, [&](size_t node) {
    std::vector<std::string> argv = {"sh", "-c", kScript, "sh"};
    for (auto& name : targets(node)) argv.push_back(std::move(name));
    return head::NodeCommand{argv, {"P=" + std::to_string(kParallel), std::string("K=") + kFastKex}};
  }, matrix_timeout_ms(pool.size()));
  if (!runs) return runs.error();
  std::vector<std::set<std::string>> ok(runs->size());
  for (size_t from = 0; from < runs->size(); ++from) {
    std::istringstream lines((*runs)[from].out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("ok ", 0) == 0) ok[from].insert(line.substr(3));
    }
  }
  return ok;
}

// Why the pair from -> to needs a real ssh of its own (judge_fast_check).
std::string doubt(const std::vector<std::string>& names, const PairJudgement& judged, size_t before,
                  bool ring_into_to_failed, const std::vector<bool>& reported, size_t from, size_t to) {
  if (!reported[from]) return names[from] + " did not report";
  if (!reported[to]) return names[to] + " did not report";
  if (judged.verdict != PairVerdict::ok) {
    return (judged.verdict == PairVerdict::fails ? "judged failing: " : "unsure: ") + judged.reason;
  }
  if (ring_into_to_failed) return fmt::format("the ring's real ssh from {} to {} failed", names[before], names[to]);
  return "";
}

}  // namespace

nlohmann::json ssh_check_json(const std::vector<std::string>& names, const SshCheck& check) {
  auto pairs = [&](const std::vector<SshPair>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& pair : list) {
      out.push_back({{"from", names[pair.from]}, {"to", names[pair.to]}, {"why", pair.reason}});
    }
    return out;
  };
  return {{"mode", check.mode == SshMatrixMode::full ? "full" : "fast"},
          {"pairs", names.size() * (names.size() - 1)},
          {"handshakes", check.handshakes},
          {"failed", pairs(check.failed)},
          {"confirmed", pairs(check.confirmed)}};
}

int pick_mesh_port(int avoid) {
  int port = 20000 + static_cast<int>(std::stoul(random_hex(4), nullptr, 16) % 12000);
  return port == avoid ? port + 1 : port;
}

int fast_check_seconds(size_t nodes) { return reach_seconds(nodes); }

void add_fast_check(CrossOptions& cross, const std::vector<std::string>& names, size_t node, int probe_port) {
  size_t n = names.size();
  cross.kex = kFastKex;
  cross.probe_port = probe_port;
  for (size_t k = 1; k < n; ++k) cross.peers.push_back(names[(node + k) % n]);
}

Result<SshCheck> judge_fast_check(head::AgentPool& pool, const std::vector<std::string>& names,
                                  const std::vector<head::NodeRun>& runs, int port) {
  size_t n = names.size();
  std::vector<NodeSshView> views(n);
  std::vector<bool> reported(n, false);
  for (size_t i = 0; i < n; ++i) {
    reported[i] = runs[i].ok();
    views[i] = parse_ssh_view(runs[i].out);
  }
  SshCheck check;
  check.mode = SshMatrixMode::fast;
  check.handshakes = n;  // the ring
  check.probe_port = port;
  std::vector<std::vector<std::string>> confirm(n);
  std::vector<std::vector<std::string>> reasons(n, std::vector<std::string>(n));
  for (size_t from = 0; from < n; ++from) {
    for (size_t to = 0; to < n; ++to) {
      if (to == from) continue;
      size_t before = (to + n - 1) % n;  // the node whose ring handshake and host key scan went to `to`
      auto ring = views[before].peers.find(names[to]);
      auto judged = judge_pair(names[from], views[from], names[to], views[to], views[before].next_host_keys,
                               ring == views[before].peers.end() ? nullptr : &ring->second);
      if (auto link = views[from].peers.find(names[to]);
          link != views[from].peers.end() && link->second.configured && !link->second.proxy) {
        const PeerView& peer = link->second;
        if (!peer.linked) {
          std::string why = !peer.link_error.empty() ? peer.link_error : "not tried (the node did not report)";
          if (!views[to].listen_error.empty()) why = names[to] + " could not listen: " + views[to].listen_error;
          check.unlinked.push_back({from, to, fmt::format("{} ({}): {}", peer.host, port, why)});
        }
      } else if (!reported[from]) {
        check.unlinked.push_back({from, to, fmt::format("{} did not report", names[from])});
      }
      std::string reason = judged.verdict == PairVerdict::fails ? judged.reason : "";
      if (before == from) {  // a ring pair: its own real ssh is the verdict
        if (views[from].ring_ok != 1) check.failed.push_back({from, to, reason});
        continue;
      }
      // A node whose sshd refused its ring predecessor may refuse what the cheap checks cannot see: ask ssh.
      bool ring_into_to_failed = views[before].ring_ok != 1;
      if (judged.verdict == PairVerdict::ok && !ring_into_to_failed && reported[from] && reported[to]) continue;
      confirm[from].push_back(names[to]);
      reasons[from][to] = reason;
      check.confirmed.push_back({from, to, doubt(names, judged, before, ring_into_to_failed, reported, from, to)});
    }
  }
  size_t confirmations = 0;
  for (const auto& list : confirm) confirmations += list.size();
  if (confirmations > 0) {
    auto ok = real_ssh(pool, [&](size_t node) { return confirm[node]; });
    if (!ok) return ok.error();
    check.handshakes += confirmations;
    for (size_t from = 0; from < n; ++from) {
      for (const auto& name : confirm[from]) {
        if ((*ok)[from].count(name)) continue;
        size_t to = static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
        check.failed.push_back({from, to, reasons[from][to]});
      }
    }
  }
  std::sort(check.failed.begin(), check.failed.end(),
            [](const SshPair& a, const SshPair& b) { return std::tie(a.from, a.to) < std::tie(b.from, b.to); });
  return check;
}

std::optional<SshMatrixMode> parse_ssh_matrix_mode(std::string_view text) {
  if (text == "off") return SshMatrixMode::off;
  if (text == "fast") return SshMatrixMode::fast;
  if (text == "full") return SshMatrixMode::full;
  return std::nullopt;
}

Result<std::vector<SshPair>> failed_ssh_pairs(head::AgentPool& pool, const std::vector<std::string>& names) {
  auto ok = real_ssh(pool, [&](size_t node) {
    std::vector<std::string> peers;
    for (size_t k = 1; k < names.size(); ++k) peers.push_back(names[(node + k) % names.size()]);
    return peers;
  });
  if (!ok) return ok.error();
  std::vector<SshPair> failed;
  for (size_t from = 0; from < ok->size(); ++from) {
    for (size_t to = 0; to < names.size(); ++to) {
      if (to != from && !(*ok)[from].count(names[to])) failed.push_back({from, to, ""});
    }
  }
  return failed;
}

Result<SshCheck> check_ssh_pairs(head::AgentPool& pool, const std::vector<std::string>& names, SshMatrixMode mode) {
  if (mode == SshMatrixMode::fast) {
    int port = pick_mesh_port(0);
    std::string token = new_probe_token();
    auto runs = head::run_on_nodes(pool, [&](size_t node) {
      CrossOp op;
      op.cross.seconds = fast_check_seconds(names.size());
      add_fast_check(op.cross, names, node, port);
      return head::node_op_command(op, {std::string(kProbeTokenEnv) + "=" + token});
    }, fast_check_timeout_ms(names.size()));
    if (!runs) return runs.error();
    return judge_fast_check(pool, names, *runs, port);
  }
  auto failed = failed_ssh_pairs(pool, names);
  if (!failed) return failed.error();
  SshCheck check;
  check.mode = SshMatrixMode::full;
  check.failed = std::move(*failed);
  check.handshakes = names.size() * (names.size() - 1);
  return check;
}

}  // namespace muster::doctor
