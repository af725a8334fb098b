// The fast node-to-node ssh check's judgement, pure: what every node reported about its ssh client side
// (for each peer: what `ssh -G peer` resolves, the known_hosts entries for it, the keys it would offer, whether
// the peer's sshd answers with a banner) and its server side (its user, its authorized_keys), plus the host keys
// each sshd really serves (scanned by its ring predecessor) -> a verdict per ordered pair. No key exchange per
// pair: the real handshakes are the ring's (ssh/matrix.cc) and the confirmation of the pairs judged here as not
// ok. Parsing never fails: what a node did not report makes the pairs it concerns `unsure`, never `ok`.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace muster::doctor {

// What node a sees of peer b (the lines of the node script in ssh/matrix.cc, by peer name).
struct PeerView {
  bool configured = false;  // `ssh -G b` worked
  std::string host;         // HostName
  std::string port = "22";
  std::string user;
  std::string strict = "ask";  // StrictHostKeyChecking
  std::string alias;           // HostKeyAlias
  std::vector<std::string> known_files;  // the known_hosts files ssh reads for b (NodeSshView::known_lines)
  bool identities_only = false;
  bool proxy = false;           // ProxyCommand/ProxyJump: reachability and host key are the proxy's business
  bool known_unsure = false;    // a known_hosts path this check cannot expand (a %token)
  bool identity_unsure = false;  // an identity whose public key could not be read (no .pub and not an
                                 // unencrypted key in OpenSSH's format: ssh/private_key.h; a %token)
  std::vector<std::string> known;       // "type blob" of the known_hosts entries for b (no @revoked)
  bool known_cert_authority = false;    // an @cert-authority entry matches b
  std::vector<std::string> revoked;     // "type blob" of @revoked entries
  std::vector<std::string> identities;  // "type blob" of the public keys a would offer
  std::string banner;                   // the first line b's sshd sent ("" when none)
  std::string reach_error;              // why there was no banner ("" when reached or not tried)
  // Mesh mode (ssh/view.h): a's connection to b's probe listener at the address ssh resolved.
  bool linked = false;
  std::string link_address;             // the numeric address it reached
  std::string link_error;               // why not ("" when linked or not tried)
};

struct AuthorizedKey {
  std::string key;   // "type blob"
  bool restricted = false;  // from= or command=: whether it admits this pair is not decided here
};

struct NodeSshView {
  std::string user;  // who the agent runs as (`id -un`)
  std::vector<AuthorizedKey> authorized;  // ~/.ssh/authorized_keys{,2}
  std::vector<std::string> agent_keys;    // `ssh-add -L` ("type blob")
  std::map<std::string, PeerView> peers;  // by the peer's name as given
  std::map<std::string, std::vector<std::string>> known_lines;  // known_hosts file -> its lines
  // The ring: the host keys the next node's sshd served, as SHA256 fingerprints ("SHA256:..."; from the ring
  // ssh's -v output, or ssh-keyscan lines), and whether the real `ssh next true` worked (-1: not reported).
  std::vector<std::string> next_host_keys;
  int ring_ok = -1;
  std::string listen_error;  // mesh mode: why this node could not serve its probe port ("" when it did)
};

// Parses the node script's output (unknown lines are ignored).
NodeSshView parse_ssh_view(std::string_view text);

// The SHA256 fingerprint of "type blob" as ssh prints it ("SHA256:" + unpadded base64); "" for a bad blob.
std::string key_fingerprint(std::string_view key);

// "type blob" from an authorized_keys or public key line (options and comment dropped); "" when there is none.
std::string key_of_line(std::string_view line, bool* restricted = nullptr);

enum class PairVerdict { ok, fails, unsure };

struct PairJudgement {
  PairVerdict verdict = PairVerdict::unsure;
  std::string reason;  // for fails and unsure: what is missing or unknown, naming the nodes
};

// The verdict for `ssh to_name` from node `from`: `served` are the fingerprints of the host keys to's sshd
// serves (empty: unknown), `to` is what node `to` reported (its user and authorized_keys), `ring` what the
// node whose ring handshake went to `to` resolved for it (nullptr: unknown). In mesh mode a pair's network path
// is proven by its link; that an sshd answers at the address and port it resolved, only when the ring's
// handshake went to the same address and port.
PairJudgement judge_pair(const std::string& from_name, const NodeSshView& from, const std::string& to_name,
                         const NodeSshView& to, const std::vector<std::string>& served, const PeerView* ring = nullptr);

}  // namespace muster::doctor
