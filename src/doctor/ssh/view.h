// The ssh half of doctor's fast node-to-node check on a node (`muster node cross`, node/cross_checks.h): what this
// node's ssh client would do for each peer and what its sshd would accept, as the lines that parse_ssh_view
// (ssh/pairs.h) reads:
//   me USER · ak LINE (authorized_keys) · agent KEY (ssh-add -L) · peer NAME HOST PORT USER STRICT ONLY PROXY ·
//   alias NAME ALIAS · khf NAME FILE · khl FILE LINE · khx NAME · id NAME PUBKEY · idx NAME ·
//   link NAME ADDRESS · nolink NAME WHY · nolisten WHY · hostfp TYPE SHA256:... · ring ok|fail
//
// Reachability: every node connects to every peer's own probe listener on a high port at the address ssh
// resolved, with the run's token (probe_token.h), while serving its own for them: no process per pair on either
// side. (A banner read from each peer's sshd made it fork and re-exec: ~6 ms of CPU per pair on a VM, O(N²) in
// all, 4,032 at 64 nodes.) It proves the network path between every pair (and a port NCCL or gloo could use);
// that sshd listens at that address and port is proven by the ring (the predecessor's real ssh, compared in
// ssh/pairs.h). What neither sees is a firewall or sshd rule for port 22 from one source only: `--ssh-matrix full`.
//
// Costs per node: `ssh -G` twice per shape of config (ssh/client_config.h models the rest, and those `ssh -G` check the
// model), one connection per peer (tcp_lines.h, no process), and one real ssh to the first peer (the ring, run
// while the connections are made), whose -v output names the host key that peer's sshd served. The shell
// script this replaces started ~3 processes per peer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "posix/fd.h"
#include "posix/process.h"
#include "posix/tcp_lines.h"

namespace muster::doctor {

// What this node's ssh client does for each peer (the lines above but link/ring), and where the round reaches
// each peer not behind a proxy: the address ssh resolved, at `probe_port`.
struct SshPeers {
  std::string lines;
  std::vector<posix::LineTarget> targets;
  std::vector<std::string> target_names;  // the peer of each target
};
SshPeers describe_ssh_peers(const std::vector<std::string>& peers, int probe_port);

// link/nolink lines for the round's outcomes of `peers.targets`.
std::string link_lines(const SshPeers& peers, const std::vector<posix::LineOutcome>& outcomes);

// The ring: one real ssh to `peer` (classic key exchange `kex` first), started at construction and collected by
// finish(), which appends hostfp lines (the host keys its -v output says the peer served) and `ring ok|fail`; a
// failed first try is retried with ssh's own choice of key exchange.
class RingHandshake {
 public:
  RingHandshake(const std::string& peer, const std::string& kex);
  void finish(std::string& out);

 private:
  std::string peer_, kex_;
  std::optional<posix::Process> child_;
  posix::Fd output_;
};

}  // namespace muster::doctor
