// The node side of `muster setup`: small operations that the head runs on every node as
// `muster node <op> ...` (the agent's own binary, so nodes need nothing installed). Each prints one result
// line the head parses — `unchanged`, `changed`, `would-change`, plus op-specific lines — and exits 0, or
// prints a message on stderr and exits 1. Files are backed up (FILE.muster-backup) before a change and
// rewritten in place (no rename: /etc/hosts is often a bind mount, as in containers).
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace muster::setup {

// The node operations (head/node_op.h): each a type with its flags, run on the node by `muster node <name>`.

// `node hosts-block`: the managed block of `file` (usually /etc/hosts) set to `lines`. Also prints
// `loopback-trap` when the node's own name still maps to 127.0.1.1 & co.
struct HostsBlockOp {
  static constexpr const char* kName = "hosts-block";
  static constexpr const char* kHelp = "set the managed block of /etc/hosts";
  bool dry_run = false;
  std::string file;
  bool fix_loopback = false;
  std::vector<std::string> lines;
  template <typename Self, typename Visit>
  static void fields(Self& op, Visit& visit) {
    visit(op.dry_run, "--dry-run", "say what would change, change nothing");
    visit(op.file, "--file", "the hosts file");
    visit(op.fix_loopback, "--fix-loopback", "also drop the node's own name from 127.0.1.1 & co.");
    visit(op.lines, "lines", "the block's lines");
  }
  static Result<int> run(const HostsBlockOp& op);
  bool operator==(const HostsBlockOp&) const = default;
};

// `node add-lines`: appends the missing `lines` to `file`, creating it and its directory (mode 0700) if needed;
// `mode` (octal, e.g. "0600"; "" leaves it) is applied after a change.
struct AddLinesOp {
  static constexpr const char* kName = "add-lines";
  static constexpr const char* kHelp = "append missing lines to a file";
  bool dry_run = false;
  std::string file;
  std::string mode;
  std::vector<std::string> lines;
  template <typename Self, typename Visit>
  static void fields(Self& op, Visit& visit) {
    visit(op.dry_run, "--dry-run", "say what would change, change nothing");
    visit(op.file, "--file", "the file (relative: to the home directory)");
    visit(op.mode, "--mode", "octal file mode, e.g. 0600");
    visit(op.lines, "lines", "the lines that must be in the file");
  }
  static Result<int> run(const AddLinesOp& op);
  bool operator==(const AddLinesOp&) const = default;
};

// `node ssh-identity`: prints `key <public key line>` for the user's first default identity
// (~/.ssh/id_ed25519, id_ecdsa, id_rsa), creating an ed25519 key without passphrase if there is none
// (`created`), or `would-create` on a dry run.
struct SshIdentityOp {
  static constexpr const char* kName = "ssh-identity";
  static constexpr const char* kHelp = "print (or create) the user's ssh public key";
  bool dry_run = false;
  template <typename Self, typename Visit>
  static void fields(Self& op, Visit& visit) {
    visit(op.dry_run, "--dry-run", "say whether a key would be created, create none");
  }
  static Result<int> run(const SshIdentityOp& op);
  bool operator==(const SshIdentityOp&) const = default;
};

}  // namespace muster::setup
