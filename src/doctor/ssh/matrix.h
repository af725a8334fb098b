// Does `ssh nodeJ` work from node I, for every ordered pair? The names are the user's, resolved and aliased by
// each node's own ssh config. Two ways to find out, with the same verdicts for the same causes:
// - full: every node runs `ssh -o BatchMode=yes -o ConnectTimeout=5 <name> true` to every other node, 8 at a
//   time: N×(N-1) real handshakes (O(N²) key exchanges: 240 for 16 nodes, 4,032 for 64).
// - fast (the default): every node reports, for every peer, what `ssh -G peer` resolves, the known_hosts
//   entries for it and the public keys it would offer, and connects to the peer at that address (muster's
//   probe listener on a high port, with the run's token: ssh/view.h's mesh mode; no sshd forks per pair); and
//   its own user and authorized_keys. Each node also runs one real `ssh next true` to the next node in a ring,
//   whose -v output names the host key that sshd served: N handshakes that prove sshd answers at that address and
//   port and accepts what the cheap checks predict (AllowUsers/DenyUsers, PAM, its key algorithms). The head
//   judges every pair from these facts (ssh/pairs.h); a pair judged failing or unsure (one whose address or port
//   is not the one the ring proved, say), and every pair into a node whose ring handshake failed, gets a real ssh
//   of its own, so no pair is named broken that ssh would accept. The links are also a check of their own: every
//   pair of nodes can open TCP connections on a high port, as NCCL and gloo do between ranks.
//   What fast cannot see: sshd rules or firewalls that depend on the source of the connection and apply to the
//   ssh port only (Match Address, AllowUsers user@host, a port-22 rule per host) for pairs that are not in the
//   ring; the full matrix does.
// Used by `doctor` and by `setup ssh` to verify its work.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/node/cross_checks.h"
#include "head/agent_pool.h"
#include "head/node_runs.h"
#include "util/result.h"

namespace muster::doctor {

enum class SshMatrixMode { off, fast, full };

// "off", "fast" or "full".
std::optional<SshMatrixMode> parse_ssh_matrix_mode(std::string_view text);

struct SshPair {
  size_t from = 0;
  size_t to = 0;
  std::string reason;  // what the fast check found missing ("" from the full matrix: ssh just failed)
};

struct SshCheck {
  SshMatrixMode mode = SshMatrixMode::fast;
  std::vector<SshPair> failed;  // the ordered pairs for which ssh fails; empty when the mesh is complete
  size_t handshakes = 0;        // real ssh handshakes it took (the ring's, the confirmations, or N×(N-1))
  // Fast mode: the TCP links between every ordered pair (to the peer's probe port at the address its ssh uses).
  int probe_port = 0;           // 0: no links were tried (full mode)
  std::vector<SshPair> unlinked;  // pairs whose link failed, reason = why
  // Fast mode: the pairs off the ring that the facts left in doubt, so a real ssh of their own decided them;
  // reason = why they were in doubt. None on a healthy cluster whose nodes' ssh the check can follow.
  std::vector<SshPair> confirmed;
};

// The "ssh" object of doctor's JSON report (checks/report.h): the mode, the real handshakes and, for each pair a
// real ssh had to decide, why.
nlohmann::json ssh_check_json(const std::vector<std::string>& names, const SshCheck& check);

// The full matrix: the ordered pairs (node indexes into `names`) for which ssh failed. A node that could not run
// the check at all counts as failing towards every other node.
Result<std::vector<SshPair>> failed_ssh_pairs(head::AgentPool& pool, const std::vector<std::string>& names);

// fast or full (not off). Fast runs a round of `muster node cross` (node/cross_checks.h) with the ssh check alone.
Result<SshCheck> check_ssh_pairs(head::AgentPool& pool, const std::vector<std::string>& names, SshMatrixMode mode);

// The fast check as a part of doctor's cross round (examine.cc): the probe port (random in 20000-31999, not
// `avoid`; a node where it is taken says so and the pairs into it get a real ssh), the arguments of node `node`'s
// `muster node cross`, the round's bound, and the judgement of the round's outputs (ssh/pairs.h), which runs a
// real ssh for every pair in doubt.
int pick_mesh_port(int avoid);
void add_fast_check(CrossOptions& cross, const std::vector<std::string>& names, size_t node, int probe_port);
int fast_check_seconds(size_t nodes);
int fast_check_timeout_ms(size_t nodes);
Result<SshCheck> judge_fast_check(head::AgentPool& pool, const std::vector<std::string>& names,
                                  const std::vector<head::NodeRun>& runs, int probe_port);

}  // namespace muster::doctor
