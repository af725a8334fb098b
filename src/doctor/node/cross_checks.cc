#include "doctor/node/cross_checks.h"

#include <optional>

#include <fmt/core.h>

#include "doctor/probe_token.h"
#include "doctor/ssh/view.h"
#include "posix/fd.h"
#include "posix/file.h"
#include "posix/socket.h"
#include "posix/tcp_lines.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

// A non-blocking listener on `port`, or why not.
posix::Fd open_listener(int port, std::string* why) {
  auto opened = posix::listen_tcp(port);
  if (!opened) {
    *why = one_line(opened.error().message);
    return posix::Fd();
  }
  if (auto ok = posix::set_nonblocking(opened->get()); !ok) {
    *why = one_line(ok.error().message);
    return posix::Fd();
  }
  return std::move(*opened);
}

// The markers that nodes wrote in the facts round: node 0's in the shared paths, every node's in its caches.
std::string look_for_markers(const CrossOptions& options) {
  std::string out;
  if (options.marker.empty()) return out;
  for (const auto& path : options.seen_paths) {
    if (posix::path_exists(path + "/" + options.marker)) out += "seen " + path + "\n";
  }
  std::string prefix = options.marker + "-";
  for (size_t i = 0; i < options.cache_dirs.size(); ++i) {
    for (const auto& file : posix::glob_paths(options.cache_dirs[i] + "/" + prefix + "*")) {
      std::string writer = file.substr(file.rfind('-') + 1);
      if (!writer.empty() && writer.find_first_not_of("0123456789") == std::string::npos) {
        out += fmt::format("cache {} {}\n", i, writer);
      }
    }
  }
  return out;
}

}  // namespace

void write_markers(const MarkerOptions& options) {
  if (options.marker.empty()) return;
  for (const auto& path : options.paths) (void)posix::write_file_atomic(path + "/" + options.marker, "", 0600);
  for (const auto& dir : options.cache_dirs) {
    if (dir.empty()) continue;
    (void)posix::write_file_atomic(fmt::format("{}/{}-{}", dir, options.marker, options.node_index), "", 0600);
  }
}

std::string run_cross_checks(const CrossOptions& options) {
  std::string out;
  std::string hello = probe_hello_line(options.token);
  std::string answer = std::string(kProbeAnswer) + "\n";
  posix::LineRound round;
  round.send = hello;
  round.retry = true;
  round.ipv4_only = true;
  round.timeout_ms = options.seconds * 1000;
  // Listen first, so that peers that get here sooner find the ports open.
  posix::Fd mesh, master;
  if (!options.peers.empty()) {
    std::string why;
    mesh = open_listener(options.probe_port, &why);
    if (!mesh.valid()) out += "nolisten " + why + "\n";
  }
  if (options.master_listen > 0) {
    std::string why;
    master = open_listener(options.master_listen, &why);
    out += master.valid() ? "" : "master in-use " + why + "\n";
  }
  out += look_for_markers(options);
  std::optional<SshPeers> ssh;
  std::optional<RingHandshake> ring;
  if (!options.peers.empty()) {
    ssh = describe_ssh_peers(options.peers, options.probe_port);
    out += ssh->lines;
    round.targets = ssh->targets;
    if (mesh.valid()) round.servers.push_back({mesh.get(), hello, answer, static_cast<int>(ssh->targets.size())});
    ring.emplace(options.peers.front(), options.kex);
  }
  size_t master_target = round.targets.size();
  bool connect_master = options.master_listen == 0 && options.master_port > 0;
  if (connect_master) round.targets.push_back({options.master_host, options.master_port});
  size_t master_server = round.servers.size();
  if (master.valid()) round.servers.push_back({master.get(), hello, answer, options.master_expect});
  auto result = posix::exchange_lines(round);
  if (ssh) {
    out += link_lines(*ssh, std::vector<posix::LineOutcome>(result.outcomes.begin(),
                                                              result.outcomes.begin() + static_cast<long>(master_target)));
    out += fmt::format("served {} {}\n", mesh.valid() ? result.accepted.front() : 0, result.strays);
  }
  if (connect_master) {
    const auto& reached = result.outcomes[master_target];
    if (reached.answered && reached.line == kProbeAnswer) out += "master reached\n";
    else out += "master unreachable " + (reached.answered ? "not muster's listener: " + one_line(reached.line) : reached.error) + "\n";
  }
  if (master.valid()) out += fmt::format("master accepted {}\n", result.accepted[master_server]);
  if (ring) ring->finish(out);
  return out;
}

}  // namespace muster::doctor
