// The node side of `muster setup`: small operations that the head runs on every node as
// `muster node <op> ...` (the agent's own binary, so nodes need nothing installed). Each prints one result
// line the head parses — `unchanged`, `changed`, `would-change`, plus op-specific lines — and exits 0, or
// prints a message on stderr and exits 1. Files are backed up (FILE.muster-backup) before a change and
// rewritten in place (no rename: /etc/hosts is often a bind mount, as in containers).
#pragma once

#include <string>
#include <vector>

namespace muster::setup {

struct NodeOpOptions {
  bool dry_run = false;
  bool fix_loopback = false;
  std::string file;
  int file_mode = 0;  // 0: leave as is (new files get 0644)
  std::vector<std::string> lines;
};

// `node hosts-block`: the managed block of `file` (usually /etc/hosts) set to `lines`. Also prints
// `loopback-trap` when the node's own name still maps to 127.0.1.1 & co.
int hosts_block_op(const NodeOpOptions& options);

// `node add-lines`: appends the missing `lines` to `file`, creating it and its directory (mode 0700) if needed.
int add_lines_op(const NodeOpOptions& options);

// `node ssh-identity`: prints `key <public key line>` for the user's first default identity
// (~/.ssh/id_ed25519, id_ecdsa, id_rsa), creating an ed25519 key without passphrase if there is none
// (`created`), or `would-create` on a dry run.
int ssh_identity_op(const NodeOpOptions& options);

}  // namespace muster::setup
