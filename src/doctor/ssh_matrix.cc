#include "doctor/ssh_matrix.h"

#include <algorithm>
#include <sstream>

#include "head/node_runs.h"

namespace muster::doctor {
namespace {

constexpr int kMatrixTimeoutMs = 60'000;

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

}  // namespace

Result<std::vector<SshPair>> failed_ssh_pairs(head::AgentPool& pool, const std::vector<std::string>& names) {
  auto runs = head::run_on_nodes(pool, [&](size_t node) {
    std::vector<std::string> argv = {"sh", "-c", kScript, "sh"};
    for (size_t k = 1; k < names.size(); ++k) argv.push_back(names[(node + k) % names.size()]);
    return head::NodeCommand{argv, {"P=" + std::to_string(kParallel), std::string("K=") + kFastKex}};
  }, kMatrixTimeoutMs);
  if (!runs) return runs.error();
  std::vector<SshPair> failed;
  for (size_t from = 0; from < runs->size(); ++from) {
    std::vector<std::string> ok;
    std::istringstream lines((*runs)[from].out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("ok ", 0) == 0) ok.push_back(line.substr(3));
    }
    for (size_t to = 0; to < names.size(); ++to) {
      if (to != from && std::find(ok.begin(), ok.end(), names[to]) == ok.end()) failed.push_back({from, to});
    }
  }
  return failed;
}

}  // namespace muster::doctor
