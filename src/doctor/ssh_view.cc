#include "doctor/ssh_view.h"

#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include <fmt/core.h>

#include "doctor/ssh_config.h"
#include "posix/file.h"
#include "posix/run_commands.h"
#include "posix/tcp_banner.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

constexpr int kSshGTimeoutMs = 10'000;
constexpr int kSshGParallel = 8;  // `ssh -G` processes at once

std::optional<std::string> read_config(const std::string& path) {
  auto text = posix::read_text_file(path);
  if (!text) return std::nullopt;
  return std::move(*text);
}

// The lines of a file the script printed, each with `tag`; false when it cannot be read.
bool print_lines(std::string& out, const std::string& tag, const std::string& path, bool skip_comments) {
  auto text = posix::read_text_file(path);
  if (!text) return false;
  for (auto line : split_lines(*text)) {
    if (skip_comments && (line.empty() || line[0] == '#')) continue;
    out += tag + " " + std::string(line) + "\n";
  }
  return true;
}

std::string expand_home(const std::string& path, const std::string& home) {
  if (path.rfind("~/", 0) == 0) return home + path.substr(1);
  return path;
}

// `ssh -G` for each name, `kSshGParallel` at a time; nullopt for a name ssh refused.
std::vector<std::optional<ResolvedPeer>> ask_ssh(const std::vector<std::vector<std::string>>& commands) {
  std::vector<std::optional<ResolvedPeer>> out;
  for (size_t start = 0; start < commands.size(); start += kSshGParallel) {
    std::vector<std::vector<std::string>> batch(commands.begin() + static_cast<long>(start),
                                                commands.begin() + static_cast<long>(std::min(commands.size(), start + kSshGParallel)));
    for (auto& outcome : posix::run_commands(batch, kSshGTimeoutMs)) {
      if (outcome.succeeded()) out.push_back(parse_ssh_g(outcome.out));
      else out.push_back(std::nullopt);
    }
  }
  return out;
}

std::vector<std::string> ssh_g(const std::string& name) { return {"ssh", "-G", name}; }

// What `ssh -G` says for every peer: the config model where one `ssh -G` per group agrees with it, ssh itself
// for the rest. nullopt: ssh refused the name.
std::vector<std::optional<ResolvedPeer>> resolve_peers(const std::vector<std::string>& peers,
                                                       const posix::Account& account) {
  auto config = SshConfig::load(account.home + "/.ssh/config", "/etc/ssh/ssh_config", account.home, account.name,
                                read_config, posix::glob_paths);
  std::vector<std::optional<ResolvedPeer>> resolved(peers.size());
  std::vector<size_t> ask;  // peers only ssh can answer for
  if (!config.supported()) {
    for (size_t i = 0; i < peers.size(); ++i) ask.push_back(i);
  } else {
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t i = 0; i < peers.size(); ++i) groups[config.group_of(peers[i])].push_back(i);
    std::vector<std::vector<std::string>> commands = {{"ssh", "-F", "/dev/null", "-G", "muster-defaults"}};
    std::vector<const std::vector<size_t>*> order;
    for (const auto& [key, members] : groups) {
      commands.push_back(ssh_g(peers[members.front()]));
      order.push_back(&members);
    }
    auto answers = ask_ssh(commands);
    if (answers[0]) config.set_defaults(*answers[0]);
    for (size_t g = 0; g < order.size(); ++g) {
      const auto& members = *order[g];
      auto model = config.resolve(peers[members.front()]);
      bool agrees = model && answers[g + 1] && *model == *answers[g + 1];
      resolved[members.front()] = answers[g + 1];
      for (size_t k = 1; k < members.size(); ++k) {
        size_t i = members[k];
        if (agrees) resolved[i] = config.resolve(peers[i]);
        if (!resolved[i]) ask.push_back(i);
      }
    }
  }
  std::vector<std::vector<std::string>> commands;
  for (size_t i : ask) commands.push_back(ssh_g(peers[i]));
  auto answers = ask_ssh(commands);
  for (size_t k = 0; k < ask.size(); ++k) resolved[ask[k]] = answers[k];
  return resolved;
}

// The peer lines the check reads (see ssh_view.h), for one peer.
void describe_peer(std::string& out, const std::string& name, const ResolvedPeer& peer, const std::string& home,
                   std::set<std::string>& printed_files) {
  out += fmt::format("peer {} {} {} {} {} {} {}\n", name, peer.host, peer.port, peer.user, peer.strict,
                     peer.identities_only ? "yes" : "no", peer.proxy ? "yes" : "no");
  if (!peer.alias.empty()) out += fmt::format("alias {} {}\n", name, peer.alias);
  std::vector<std::string> known = peer.global_known_files;
  known.insert(known.end(), peer.user_known_files.begin(), peer.user_known_files.end());
  for (auto file : known) {
    file = expand_home(file, home);
    if (file.find('%') != std::string::npos) {
      out += "khx " + name + "\n";
      continue;
    }
    auto fd = posix::open_read(file, false);
    if (!fd) {
      if (posix::path_exists(file)) out += fmt::format("khf {} {}\nkhx {}\n", name, file, name);
      continue;
    }
    auto st = posix::stat_fd(fd->get());
    if (!st || !st->is_file()) continue;
    out += fmt::format("khf {} {}\n", name, file);
    if (!printed_files.insert(file).second) continue;
    if (!print_lines(out, "khl " + file, file, true)) out += "khx " + name + "\n";
  }
  for (auto file : peer.identity_files) {
    file = expand_home(file, home);
    if (file.find('%') != std::string::npos) {
      out += "idx " + name + "\n";
      continue;
    }
    auto text = posix::read_text_file(file + ".pub");
    if (text) {
      auto lines = split_lines(*text);
      if (!lines.empty()) out += fmt::format("id {} {}\n", name, lines.front());
    } else if (posix::path_exists(file)) {
      out += "idx " + name + "\n";
    }
  }
}

// The ring: one real ssh to `peer` (classic key exchange first, then ssh's own choice), its -v output saying
// which host key the peer's sshd served.
void ring_handshake(std::string& out, const std::string& peer, const std::string& kex) {
  auto attempt = [&](bool classic) {
    std::vector<std::string> argv = {"ssh", "-v", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5"};
    if (classic && !kex.empty()) argv.insert(argv.end(), {"-o", "KexAlgorithms=" + kex});
    argv.insert(argv.end(), {peer, "true"});
    auto outcome = posix::run_commands({argv}, 20'000);
    for (auto line : split_lines(outcome[0].err)) {
      static constexpr std::string_view kKey = "Server host key: ";
      size_t at = line.find(kKey);
      if (at != std::string_view::npos) out += "hostfp " + std::string(trim(line.substr(at + kKey.size()))) + "\n";
    }
    return outcome[0].succeeded();
  };
  if (attempt(true) || (!kex.empty() && attempt(false))) {
    out += "ring ok\n";
  } else {
    out += "ring fail\n";
  }
}

}  // namespace

std::string ssh_view(const SshViewOptions& options) {
  std::string out;
  posix::Account account = posix::current_account();
  if (account.home.empty()) account.home = posix::home_directory();
  out += "me " + account.name + "\n";
  for (const char* file : {"/.ssh/authorized_keys", "/.ssh/authorized_keys2"}) {
    (void)print_lines(out, "ak", account.home + file, false);
  }
  const char* agent = std::getenv("SSH_AUTH_SOCK");
  if (agent != nullptr && *agent != '\0') {
    auto listed = posix::run_commands({{"ssh-add", "-L"}}, 5'000);
    if (listed[0].succeeded()) {
      for (auto line : split_lines(listed[0].out)) out += "agent " + std::string(line) + "\n";
    }
  }
  auto resolved = resolve_peers(options.peers, account);
  std::set<std::string> printed_files;
  std::vector<posix::BannerTarget> targets;
  std::vector<size_t> target_peer;
  for (size_t i = 0; i < options.peers.size(); ++i) {
    const auto& name = options.peers[i];
    if (!resolved[i]) {
      out += "peer " + name + " error\n";
      continue;
    }
    describe_peer(out, name, *resolved[i], account.home, printed_files);
    if (resolved[i]->proxy) continue;
    targets.push_back({resolved[i]->host, std::atoi(resolved[i]->port.c_str())});
    target_peer.push_back(i);
  }
  if (options.peers.empty()) return out;
  auto banners = posix::read_banners(targets, options.in_flight, options.reach_seconds * 1000);
  for (size_t k = 0; k < banners.size(); ++k) {
    const auto& name = options.peers[target_peer[k]];
    if (banners[k].answered) out += fmt::format("reach {} {}\n", name, one_line(banners[k].line));
    else out += fmt::format("noreach {} {}\n", name, banners[k].error);
  }
  ring_handshake(out, options.peers.front(), options.kex);
  return out;
}

}  // namespace muster::doctor
