#include "doctor/ssh/pairs.h"

#include <algorithm>

#include <fmt/core.h>

#include "doctor/ssh/known_hosts.h"
#include "util/hmac_sha1.h"
#include "util/sha256.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

// The words of `text` separated by blanks.
std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) out.emplace_back(text.substr(start, i - start));
  }
  return out;
}

bool is_key_type(std::string_view word) {
  return word.rfind("ssh-", 0) == 0 || word.rfind("ecdsa-", 0) == 0 || word.rfind("sk-", 0) == 0 ||
         word.rfind("rsa-", 0) == 0;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Whether one of `keys` ("type blob") has one of the fingerprints `served`.
bool serves(const std::vector<std::string>& keys, const std::vector<std::string>& served) {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& key) {
    auto print = key_fingerprint(key);
    return !print.empty() && contains(served, print);
  });
}

// A known_hosts line: [@marker] patterns type blob [comment]; `name` empty: the line is known to match.
void add_known(PeerView& peer, std::string_view line, const std::string& name = "") {
  auto w = words(line);
  size_t at = 0;
  std::string marker;
  if (at < w.size() && !w[at].empty() && w[at][0] == '@') marker = w[at++];
  if (at + 3 > w.size()) return;
  if (!name.empty() && !known_hosts_field_matches(w[at], name)) return;
  ++at;  // the host patterns
  std::string key = w[at] + " " + w[at + 1];
  if (marker == "@revoked") {
    peer.revoked.push_back(key);
  } else if (marker == "@cert-authority") {
    peer.known_cert_authority = true;
  } else if (marker.empty()) {
    peer.known.push_back(key);
  }
}

}  // namespace

std::string key_fingerprint(std::string_view key) {
  size_t space = key.find(' ');
  if (space == std::string_view::npos) return "";
  auto blob = base64_decode(key.substr(space + 1));
  if (!blob) return "";
  std::string hex = sha256_hex(*blob), raw;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) raw += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  std::string text = base64_encode(raw);
  while (!text.empty() && text.back() == '=') text.pop_back();
  return "SHA256:" + text;
}

std::string key_of_line(std::string_view line, bool* restricted) {
  // Options come first and may hold quoted blanks: the key type is the first word, outside quotes, that names
  // a key type; what precedes it is the options.
  bool quoted = false;
  size_t i = 0, start = 0;
  std::string_view options;
  while (i <= line.size()) {
    if (i == line.size() || (!quoted && (line[i] == ' ' || line[i] == '\t'))) {
      std::string_view word = line.substr(start, i - start);
      if (!word.empty() && is_key_type(word)) {
        options = line.substr(0, start);
        auto rest = words(line.substr(i));
        if (rest.empty()) return "";
        if (restricted) {
          *restricted = options.find("from=") != std::string_view::npos ||
                        options.find("command=") != std::string_view::npos;
        }
        return std::string(word) + " " + rest[0];
      }
      start = i + 1;
    } else if (line[i] == '"') {
      quoted = !quoted;
    }
    ++i;
  }
  return "";
}

NodeSshView parse_ssh_view(std::string_view text) {
  NodeSshView view;
  for (auto raw : split_lines(text)) {
    std::string_view line = trim(raw);
    size_t space = line.find(' ');
    std::string_view tag = line.substr(0, space);
    std::string_view rest = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    if (tag == "me") {
      view.user = std::string(trim(rest));
    } else if (tag == "ak") {
      AuthorizedKey key;
      key.key = key_of_line(rest, &key.restricted);
      if (!key.key.empty()) view.authorized.push_back(std::move(key));
    } else if (tag == "agent") {
      auto key = key_of_line(rest);
      if (!key.empty()) view.agent_keys.push_back(std::move(key));
    } else if (tag == "ring") {
      if (trim(rest) == "ok") {
        view.ring_ok = 1;
      } else if (view.ring_ok != 1) {
        view.ring_ok = 0;
      }
    } else if (tag == "hostfp") {  // ssh -v: "Server host key: type SHA256:..."
      auto w = words(rest);
      if (w.size() >= 2 && w[1].rfind("SHA256:", 0) == 0) view.next_host_keys.push_back(w[1]);
    } else if (tag == "nolisten") {
      view.listen_error = std::string(trim(rest));
    } else if (tag == "hostkey") {  // ssh-keyscan's line: host type blob
      auto w = words(rest);
      if (w.size() >= 3) view.next_host_keys.push_back(key_fingerprint(w[1] + " " + w[2]));
    } else {
      // Per-peer lines: TAG NAME ...
      size_t name_end = rest.find(' ');
      std::string name(rest.substr(0, name_end));
      if (name.empty()) continue;
      std::string_view tail = name_end == std::string_view::npos ? std::string_view() : rest.substr(name_end + 1);
      if (tag == "peer") {
        PeerView& peer = view.peers[name];
        auto w = words(tail);
        if (w.size() >= 6) {
          peer.configured = true;
          peer.host = w[0];
          peer.port = w[1];
          peer.user = w[2];
          peer.strict = w[3];
          peer.identities_only = w[4] == "yes";
          peer.proxy = w[5] == "yes";
        }
      } else if (tag == "alias") {
        view.peers[name].alias = std::string(trim(tail));
      } else if (tag == "khf") {
        view.peers[name].known_files.emplace_back(trim(tail));
      } else if (tag == "khl") {  // here `name` is the file
        view.known_lines[name].emplace_back(tail);
      } else if (tag == "kh") {
        add_known(view.peers[name], tail);
      } else if (tag == "khx") {
        view.peers[name].known_unsure = true;
      } else if (tag == "id") {
        auto key = key_of_line(tail);
        if (!key.empty()) view.peers[name].identities.push_back(std::move(key));
      } else if (tag == "idx") {
        view.peers[name].identity_unsure = true;
      } else if (tag == "reach") {
        view.peers[name].banner = std::string(tail);
      } else if (tag == "noreach") {
        view.peers[name].reach_error = std::string(tail);
      } else if (tag == "link") {
        view.peers[name].linked = true;
        view.peers[name].link_address = std::string(trim(tail));
      } else if (tag == "nolink") {
        view.peers[name].link_error = std::string(tail);
      }
    }
  }
  for (auto& [name, peer] : view.peers) {
    if (!peer.configured) continue;
    std::string lookup = known_hosts_name(peer.host, peer.port, peer.alias);
    for (const auto& file : peer.known_files) {
      auto lines = view.known_lines.find(file);
      if (lines == view.known_lines.end()) continue;
      for (const auto& line : lines->second) add_known(peer, line, lookup);
    }
  }
  return view;
}

PairJudgement judge_pair(const std::string& from_name, const NodeSshView& from, const std::string& to_name,
                         const NodeSshView& to, const std::vector<std::string>& served, const PeerView* ring) {
  auto it = from.peers.find(to_name);
  if (it == from.peers.end() || !it->second.configured) {
    return {PairVerdict::unsure, fmt::format("{} did not report how it reaches {} (`ssh -G {}`)", from_name,
                                             to_name, to_name)};
  }
  const PeerView& peer = it->second;
  std::vector<std::string> unsure;
  // Reachability: a banner from the sshd at the address and port `ssh -G` resolved on `from`; or, in mesh mode,
  // a link to `to` at that address, and the ring's real ssh to the same address and port.
  if (!peer.proxy && peer.linked) {
    bool proven = ring != nullptr && ring->configured && ring->linked && ring->link_address == peer.link_address &&
                  ring->port == peer.port;
    if (!proven) {
      unsure.push_back(fmt::format("{} reaches {} at {} port {}, where no ring handshake went", from_name, to_name,
                                   peer.link_address, peer.port));
    }
  } else if (!peer.proxy && !peer.link_error.empty()) {
    return {PairVerdict::fails, fmt::format("{} cannot reach {} at {} ({})", from_name, to_name, peer.host,
                                            peer.link_error)};
  } else if (!peer.proxy && peer.banner.rfind("SSH-", 0) != 0) {
    std::string why = !peer.reach_error.empty() ? peer.reach_error
                      : peer.banner.empty()     ? "no answer"
                                                : "not an ssh server: " + one_line(peer.banner.substr(0, 60));
    return {PairVerdict::fails, fmt::format("{} cannot reach {}'s sshd at {} port {} ({})", from_name, to_name,
                                            peer.host, peer.port, why)};
  }
  // Host key: one of the keys from's known_hosts holds for to is one that to's sshd serves.
  bool strict_off = peer.strict == "no" || peer.strict == "false" || peer.strict == "off";
  if (!strict_off) {
    if (served.empty()) {
      unsure.push_back(fmt::format("{}'s host keys are unknown", to_name));
    } else if (serves(peer.revoked, served)) {
      return {PairVerdict::fails, fmt::format("{}'s known_hosts marks {}'s host key @revoked", from_name, to_name)};
    } else if (serves(peer.known, served)) {
      // verified
    } else if (peer.known_cert_authority) {
      unsure.push_back(fmt::format("{} trusts a certificate authority for {}", from_name, to_name));
    } else if (!peer.known.empty()) {
      return {PairVerdict::fails,
              fmt::format("{}'s known_hosts holds another host key for {} than its sshd serves (reinstalled? "
                          "ssh-keygen -R {} on {})", from_name, to_name, peer.host, from_name)};
    } else if (peer.strict == "accept-new") {
      // ssh adds the key on first contact
    } else if (peer.known_unsure) {
      unsure.push_back(fmt::format("{}'s known_hosts files could not be read", from_name));
    } else {
      return {PairVerdict::fails, fmt::format("{}'s known_hosts has no key for {} ({})", from_name, to_name,
                                              peer.host)};
    }
  }
  // Authorization: a key from offers is in to's authorized_keys, for the user from logs in as.
  if (peer.user != to.user) {
    unsure.push_back(fmt::format("{} logs in to {} as {}, whose authorized_keys were not read", from_name, to_name,
                                 peer.user));
  } else {
    std::vector<std::string> offered = peer.identities;
    if (!peer.identities_only) offered.insert(offered.end(), from.agent_keys.begin(), from.agent_keys.end());
    bool plain = false, restricted = false;
    for (const auto& key : to.authorized) {
      if (!contains(offered, key.key)) continue;
      (key.restricted ? restricted : plain) = true;
    }
    if (!plain) {
      if (restricted) {
        unsure.push_back(fmt::format("{}'s key is authorized on {} with from= or command=", from_name, to_name));
      } else if (peer.identity_unsure) {
        unsure.push_back(fmt::format("{} has a key whose public half could not be read", from_name));
      } else {
        return {PairVerdict::fails,
                fmt::format("{} offers {} key{}, none of them in {}:~/.ssh/authorized_keys", from_name,
                            offered.size(), offered.size() == 1 ? "" : "s", to_name)};
      }
    }
  }
  if (!unsure.empty()) {
    std::string reason;
    for (const auto& item : unsure) reason += (reason.empty() ? "" : "; ") + item;
    return {PairVerdict::unsure, reason};
  }
  return {PairVerdict::ok, ""};
}

}  // namespace muster::doctor
