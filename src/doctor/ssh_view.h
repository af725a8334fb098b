// `muster node ssh-view PEER...`: the node half of doctor's fast ssh check (ssh_matrix.h), in one process: what
// this node's ssh client would do for each peer and what its sshd would accept, printed as the lines that
// parse_ssh_view (ssh_pairs.h) reads:
//   me USER · ak LINE (authorized_keys) · agent KEY (ssh-add -L) · peer NAME HOST PORT USER STRICT ONLY PROXY ·
//   alias NAME ALIAS · khf NAME FILE · khl FILE LINE · khx NAME · id NAME PUBKEY · idx NAME ·
//   reach NAME BANNER · noreach NAME WHY (banner mode) · link NAME ADDRESS · nolink NAME WHY ·
//   served ACCEPTED STRAYS · nolisten WHY (mesh mode) · hostfp TYPE SHA256:... · ring ok|fail
//
// Reachability, two ways. Banner mode reads every peer sshd's banner at the address and port ssh resolved: one
// TCP connection per pair into an sshd, which forks (and re-execs) for each: ~6 ms of CPU per pair on a VM,
// O(N²) in all (4,032 at 64 nodes). Mesh mode (`probe_port`) instead connects to every peer's own listener on a
// high port at the address ssh resolved, with the run's token (probe_token.h), while serving its own for them:
// no process per pair on either side. It proves the network path between every pair (and a port NCCL or gloo
// could use); that sshd listens at that address and port is proven by the ring (the predecessor's real ssh,
// compared in ssh_pairs.h). What neither sees is a firewall or sshd rule for port 22 from one source only:
// `--ssh-matrix full`.
//
// Costs per node: `ssh -G` once per group of peers the same Host lines match (ssh_config.h models the rest and
// each group's `ssh -G` checks the model), one connection per peer (tcp_lines.h, no process), and one real
// ssh to the first peer (the ring, run while the connections are made), whose -v output names the host key that
// peer's sshd served. The shell script this replaces started ~3 processes per peer.
#pragma once

#include <string>
#include <vector>

namespace muster::doctor {

struct SshViewOptions {
  std::vector<std::string> peers;  // the next node in the ring first
  std::string kex;                 // KexAlgorithms for the ring's first try ("" : ssh's own)
  int reach_seconds = 10;          // bound on the banner round
  int in_flight = 8;               // banner connections open at once
  int probe_port = 0;              // > 0: mesh mode, every node listens on this port
  std::string token;               // mesh mode: this run's (probe_token.h)
};

// Runs the checks and returns the lines (each ending in '\n').
std::string ssh_view(const SshViewOptions& options);

}  // namespace muster::doctor
