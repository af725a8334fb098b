// Does `ssh nodeJ` work from node I, for every ordered pair? The names are the user's, resolved and aliased by
// each node's own ssh config. Two ways to find out, with the same verdicts for the same causes:
// - full: every node runs `ssh -o BatchMode=yes -o ConnectTimeout=5 <name> true` to every other node, 8 at a
//   time: N×(N-1) real handshakes (O(N²) key exchanges: 240 for 16 nodes, 4,032 for 64).
// - fast (the default): every node reports, for every peer, what `ssh -G peer` resolves, the known_hosts
//   entries for it and the public keys it would offer, and reads the banner of the peer's sshd at that address
//   and port (a TCP connection, no key exchange); and its own user and authorized_keys. Each node also scans
//   the host keys of the next node in a ring and runs one real `ssh next true`: N handshakes that prove sshd
//   accepts what the cheap checks predict (AllowUsers/DenyUsers, PAM, its key algorithms). The head judges
//   every pair from these facts (ssh_pairs.h); a pair judged failing or unsure, and every pair into a node whose
//   ring handshake failed, gets a real ssh of its own, so no pair is named broken that ssh would accept.
//   What fast cannot see: sshd rules that depend on the source of the connection (Match Address, AllowUsers
//   user@host, tcp wrappers) for pairs that are not in the ring; the full matrix does.
// Used by `doctor` and by `setup ssh` to verify its work.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "head/agent_pool.h"
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
  std::vector<SshPair> failed;  // the ordered pairs for which ssh fails; empty when the mesh is complete
  size_t handshakes = 0;        // real ssh handshakes it took (the ring's, the confirmations, or N×(N-1))
};

// The full matrix: the ordered pairs (node indexes into `names`) for which ssh failed. A node that could not run
// the check at all counts as failing towards every other node.
Result<std::vector<SshPair>> failed_ssh_pairs(head::AgentPool& pool, const std::vector<std::string>& names);

// fast or full (not off).
Result<SshCheck> check_ssh_pairs(head::AgentPool& pool, const std::vector<std::string>& names, SshMatrixMode mode);

}  // namespace muster::doctor
