// What `ssh -G PEER` resolves for the options doctor's fast ssh check needs (where ssh connects, as whom, which
// known_hosts files and identities it uses), computed from the client's config files without running ssh.
//
// Why: the check used to run `ssh -G` once per ordered pair of nodes; a process start costs ~3-5 ms, and at 64
// nodes that is 4,032 of them. This models OpenSSH's readconf rules for the configs real clusters have —
// `Host` blocks (wildcards, `!negation`), `Include` (globs, inside Host blocks too), `key value` and `key=value`,
// quoting, first value wins, IdentityFile accumulates, `%h` in HostName, ssh's defaults — and says so when a
// config is beyond it (`Match`, `CanonicalizeHostname`, a %token it does not expand): the caller then asks ssh.
//
// It is never trusted alone: the caller runs `ssh -G` for two peers (the first and the last) of every group of
// peers to which the config applies in the same shape (group_of: the same keywords in the same order, %tokens in
// the same places; typically one group for a cluster whose config has a `Host nodeK / HostName ...` alias per
// node) and compares; a group where ssh says otherwise gets `ssh -G` for every peer.
// Pure: files come through a reader the caller supplies.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace muster::doctor {

// The options of one destination, as `ssh -G` prints them (hostname and alias lowercased, StrictHostKeyChecking
// as true/false/ask/accept-new, UserKnownHostsFile with `~` expanded, IdentityFile as written).
struct ResolvedPeer {
  std::string host;
  std::string port = "22";
  std::string user;
  std::string alias;                       // HostKeyAlias ("" when none)
  std::string strict = "ask";              // StrictHostKeyChecking
  bool identities_only = false;
  bool proxy = false;                      // a ProxyCommand or ProxyJump other than none
  std::vector<std::string> global_known_files;  // GlobalKnownHostsFile
  std::vector<std::string> user_known_files;    // UserKnownHostsFile
  std::vector<std::string> identity_files;

  bool operator==(const ResolvedPeer&) const = default;
};

// Reads `ssh -G` output (the lines above; others ignored).
ResolvedPeer parse_ssh_g(std::string_view text);

class SshConfig {
 public:
  // Reads a file (nullopt when missing or unreadable: ssh skips it too) and expands an Include glob (sorted).
  using ReadFile = std::function<std::optional<std::string>(const std::string& path)>;
  using Glob = std::function<std::vector<std::string>(const std::string& pattern)>;

  // The files ssh reads without -F: `user_file` (~/.ssh/config; Include paths relative to ~/.ssh) then
  // `system_file` (/etc/ssh/ssh_config; relative to /etc/ssh). `home` expands `~`; `user` is the default User.
  static SshConfig load(const std::string& user_file, const std::string& system_file, const std::string& home,
                        const std::string& user, const ReadFile& read, const Glob& glob);
  // One file, as `ssh -F FILE` reads it (relative Includes from ~/.ssh).
  static SshConfig load_one(const std::string& file, const std::string& home, const std::string& user,
                            const ReadFile& read, const Glob& glob);

  // What this ssh uses where the config says nothing (known_hosts files, identities): from `ssh -G` of a peer
  // the config sets none of them for (or `ssh -F /dev/null -G NAME`), so the model follows the installed
  // OpenSSH's defaults. Without it, OpenSSH 9.2's.
  void set_defaults(const ResolvedPeer& defaults) { defaults_ = defaults; }

  // False when the files use something this model does not follow (then ask ssh for every peer).
  bool supported() const { return unsupported_.empty(); }
  const std::string& unsupported_reason() const { return unsupported_; }

  // Peers with the same key get the same keywords in the same order (only their literal values differ), so
  // `ssh -G` for a few of them checks the model for all.
  std::string group_of(std::string_view destination) const;

  // The options for `ssh destination`; nullopt when the config is not supported or a value holds a %token
  // other than %h / %% in HostName (then ask ssh).
  std::optional<ResolvedPeer> resolve(std::string_view destination) const;

 private:
  struct Line {
    std::string keyword;            // lowercase
    std::vector<std::string> args;  // unquoted
    std::vector<size_t> conditions;  // indexes into hosts_ (its Host line and those of enclosing Includes)
  };
  struct HostLine {
    std::vector<std::string> patterns;
  };

  void read_file(const std::string& path, const std::string& relative_to, std::vector<size_t> conditions,
                 int depth, const ReadFile& read, const Glob& glob);
  std::vector<bool> host_matches(std::string_view destination) const;

  std::vector<Line> lines_;
  std::vector<HostLine> hosts_;
  std::string home_;
  std::string user_;
  std::string unsupported_;
  std::optional<ResolvedPeer> defaults_;
};

}  // namespace muster::doctor
