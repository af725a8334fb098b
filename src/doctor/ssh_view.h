// `muster node ssh-view PEER...`: the node half of doctor's fast ssh check (ssh_matrix.h), in one process: what
// this node's ssh client would do for each peer and what its sshd would accept, printed as the lines that
// parse_ssh_view (ssh_pairs.h) reads:
//   me USER · ak LINE (authorized_keys) · agent KEY (ssh-add -L) · peer NAME HOST PORT USER STRICT ONLY PROXY ·
//   alias NAME ALIAS · khf NAME FILE · khl FILE LINE · khx NAME · id NAME PUBKEY · idx NAME ·
//   reach NAME BANNER · noreach NAME WHY · hostfp TYPE SHA256:... · ring ok|fail
//
// Costs per node: `ssh -G` once per group of peers the same Host lines match (ssh_config.h models the rest and
// each group's `ssh -G` checks the model), one banner read per peer (tcp_banner.h, no process), and one real
// ssh to the first peer (the ring), whose -v output names the host key that peer's sshd served. The shell
// script this replaces started ~3 processes per peer.
#pragma once

#include <string>
#include <vector>

namespace muster::doctor {

struct SshViewOptions {
  std::vector<std::string> peers;  // the next node in the ring first
  std::string kex;                 // KexAlgorithms for the ring's first try ("" : ssh's own)
  int reach_seconds = 10;          // bound on the banner round
  int in_flight = 8;               // banner connections open at once
};

// Runs the checks and returns the lines (each ending in '\n').
std::string ssh_view(const SshViewOptions& options);

}  // namespace muster::doctor
