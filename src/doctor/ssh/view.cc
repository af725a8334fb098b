#include "doctor/ssh/view.h"

#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <span>

#include <fmt/core.h>

#include "doctor/ssh/client_config.h"
#include "doctor/ssh/private_key.h"
#include "posix/file.h"
#include "posix/run_commands.h"
#include "doctor/probe_token.h"
#include "posix/pipe.h"
#include "posix/process.h"
#include "posix/tcp_lines.h"
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

// A private key file, read only when it is a regular file of key size.
std::optional<std::string> read_key_file(const std::string& path) {
  constexpr size_t kMaxKeyFile = 64 << 10;
  auto fd = posix::open_read(path, false);
  if (!fd) return std::nullopt;
  auto st = posix::stat_fd(fd->get());
  if (!st || !st->is_file() || st->size > kMaxKeyFile) return std::nullopt;
  std::string text(st->size, '\0');
  auto got = posix::read_full(fd->get(), std::span<char>(text.data(), text.size()));
  if (!got) return std::nullopt;
  text.resize(*got);
  return text;
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
    // `ssh -G` for the first and the last peer of every group. The first one's answer also gives the model what
    // this ssh does where the config says nothing (its defaults: identity files, known_hosts files): every peer
    // of a group has the same options configured.
    std::vector<std::vector<std::string>> commands;
    std::vector<std::pair<const std::vector<size_t>*, std::vector<size_t>>> checked;  // group, answers' indexes
    for (const auto& [key, members] : groups) {
      std::vector<size_t> at = {commands.size()};
      commands.push_back(ssh_g(peers[members.front()]));
      if (members.size() > 1) {
        at.push_back(commands.size());
        commands.push_back(ssh_g(peers[members.back()]));
      }
      checked.emplace_back(&members, at);
    }
    auto answers = ask_ssh(commands);
    for (const auto& [group, at] : checked) {
      const auto& members = *group;
      size_t last = members.size() - 1;
      resolved[members.front()] = answers[at.front()];
      if (at.size() > 1) resolved[members.back()] = answers[at.back()];
      if (!answers[at.front()]) {
        for (size_t k = 1; k < last; ++k) ask.push_back(members[k]);
        continue;
      }
      config.set_defaults(*answers[at.front()]);
      bool agrees = true;
      for (size_t k = 0; k < at.size(); ++k) {
        auto model = config.resolve(peers[members[k == 0 ? 0 : last]]);
        agrees = agrees && model && answers[at[k]] && *model == *answers[at[k]];
      }
      for (size_t k = 1; k < last; ++k) {
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

// The peer lines the check reads (see ssh/view.h), for one peer.
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
      // No public half beside it (the how-tos copy the private key alone): OpenSSH's format holds it in the clear.
      auto key = read_key_file(file);
      auto public_key = key ? unencrypted_public_key(*key) : std::nullopt;
      out += public_key ? fmt::format("id {} {}\n", name, *public_key) : "idx " + name + "\n";
    }
  }
}

std::vector<std::string> ring_argv(const std::string& peer, const std::string& kex) {
  std::vector<std::string> argv = {"ssh", "-v", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5"};
  if (!kex.empty()) argv.insert(argv.end(), {"-o", "KexAlgorithms=" + kex});
  argv.insert(argv.end(), {peer, "true"});
  return argv;
}

// The host keys ssh -v says the peer served, and whether it worked.
bool ring_result(std::string& out, std::string_view verbose, bool worked) {
  static constexpr std::string_view kKey = "Server host key: ";
  for (auto line : split_lines(verbose)) {
    size_t at = line.find(kKey);
    if (at != std::string_view::npos) out += "hostfp " + std::string(trim(line.substr(at + kKey.size()))) + "\n";
  }
  return worked;
}

}  // namespace

RingHandshake::RingHandshake(const std::string& peer, const std::string& kex) : peer_(peer), kex_(kex) {
  auto pipe = posix::make_pipe();
  if (!pipe) return;
  posix::SpawnOptions options;
  options.argv = ring_argv(peer, kex);
  options.stdout_fd = pipe->write.get();
  options.stderr_fd = pipe->write.get();
  auto child = posix::spawn(options);
  if (!child) return;
  child_ = std::move(*child);
  output_ = std::move(pipe->read);
}

void RingHandshake::finish(std::string& out) {
  bool worked = false;
  if (child_) {
    auto text = posix::read_to_end(output_.get());
    auto status = child_->wait();
    worked = ring_result(out, text ? *text : "", status == posix::ExitStatus(posix::Exited{0}));
  }
  if (!worked && !kex_.empty()) {
    auto outcome = posix::run_commands({ring_argv(peer_, "")}, 20'000);
    worked = ring_result(out, outcome[0].err, outcome[0].succeeded());
  }
  out += worked ? "ring ok\n" : "ring fail\n";
}

SshPeers describe_ssh_peers(const std::vector<std::string>& peers, int probe_port) {
  SshPeers result;
  std::string& out = result.lines;
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
  auto resolved = resolve_peers(peers, account);
  std::set<std::string> printed_files;
  for (size_t i = 0; i < peers.size(); ++i) {
    if (!resolved[i]) {
      out += "peer " + peers[i] + " error\n";
      continue;
    }
    describe_peer(out, peers[i], *resolved[i], account.home, printed_files);
    if (resolved[i]->proxy) continue;  // reachability and host key are the proxy's business
    result.targets.push_back({resolved[i]->host, probe_port});
    result.target_names.push_back(peers[i]);
  }
  return result;
}

std::string link_lines(const SshPeers& peers, const std::vector<posix::LineOutcome>& outcomes) {
  std::string out;
  for (size_t k = 0; k < outcomes.size() && k < peers.target_names.size(); ++k) {
    const auto& name = peers.target_names[k];
    const auto& outcome = outcomes[k];
    if (outcome.answered && outcome.line == kProbeAnswer) {
      out += fmt::format("link {} {}\n", name, outcome.address);
    } else {
      out += fmt::format("nolink {} {}\n", name,
                         outcome.answered ? "not muster's listener: " + one_line(outcome.line.substr(0, 60)) : outcome.error);
    }
  }
  return out;
}

}  // namespace muster::doctor
