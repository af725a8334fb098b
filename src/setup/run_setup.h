// `muster setup ssh|hosts`: the how-tos' manual cluster set-up (ssh-copy-id on every node, /etc/hosts by hand)
// as commands run from the head. Every step runs on all nodes at once (head::run_on_nodes); node-side edits are
// `muster node ...` (node_ops.h), idempotent, never removing anything of the user's. Both print what they did
// per node.
#pragma once

#include "doctor/ssh/matrix.h"
#include "head/connect.h"
#include "util/result.h"

namespace muster::setup {

struct SetupOptions {
  head::ConnectOptions connect;
  bool dry_run = false;
  bool fix_loopback = false;  // hosts: also drop the node's own name from its 127.0.1.1 line
  // ssh: how the result is verified. fast by default: it reads, for every pair, exactly the files this step just
  // wrote (known_hosts, authorized_keys) and proves with a ring of real handshakes that sshd accepts them, O(N)
  // key exchanges where full costs N×(N-1) (a minute at 64 nodes); full for sshd rules per source address.
  doctor::SshMatrixMode ssh_matrix = doctor::SshMatrixMode::fast;
};

// Every node's key in every node's authorized_keys, every node's host keys in every known_hosts, then the
// node-to-node ssh check (doctor/ssh/matrix.h, fast unless asked for full); fails naming the pairs that still fail.
Result<void> run_setup_ssh(const SetupOptions& options);
// A managed block naming every node (at the address the head reached it on) in every node's /etc/hosts.
Result<void> run_setup_hosts(const SetupOptions& options);

}  // namespace muster::setup
