// `muster node <op>`: hidden; what the head's features run on every node: setup's file edits and key
// (setup/node_ops.h), doctor's facts, port and bandwidth probes (doctor/gather.h, port_check.h, bandwidth_probe.h),
// launch's node-local cache directory (launch/node_caches.h) and image push's image id and load
// (image/node_image.h).
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "doctor/bandwidth_probe.h"
#include "doctor/gather.h"
#include "doctor/port_check.h"
#include "doctor/probe_token.h"
#include "doctor/ssh_view.h"
#include "image/node_image.h"
#include "launch/node_caches.h"
#include "setup/node_ops.h"

namespace muster::cli {

namespace {

int run_bandwidth_round(const doctor::ProbeOptions& probe, bool pick_port) {
  auto out = pick_port ? doctor::pick_probe_port() : doctor::run_bandwidth_probe(probe);
  if (!out) return report_error(out.error());
  fmt::print("{}", *out);
  return 0;
}

}  // namespace

int run_node(const std::vector<std::string>& args) {
  auto app = make_app("node", "Internal: node-side operations of `muster setup`, `doctor`, `launch` "
                              "(--node-local-caches) and `image push`.");
  app->require_subcommand(1);
  setup::NodeOpOptions options;
  auto add_common = [&](CLI::App* op) {
    op->add_flag("--dry-run", options.dry_run);
    op->add_option("--file", options.file);
    op->add_option("--mode", options.file_mode, "octal file mode, e.g. 0600")->transform([](std::string text) {
      return std::to_string(std::stoi(text, nullptr, 8));
    });
    op->add_option("lines", options.lines);
  };
  auto* hosts = app->add_subcommand("hosts-block", "set the managed block of /etc/hosts");
  add_common(hosts);
  hosts->add_flag("--fix-loopback", options.fix_loopback);
  auto* lines = app->add_subcommand("add-lines", "append missing lines to a file");
  add_common(lines);
  auto* identity = app->add_subcommand("ssh-identity", "print (or create) the user's ssh public key");
  add_common(identity);
  doctor::GatherOptions gather;
  auto* facts = app->add_subcommand("facts", "print what `muster doctor` knows about this node, as one JSON line");
  facts->add_option("--python", gather.python, "the interpreter to probe")->capture_default_str();
  facts->add_option("--path", gather.paths, "a directory to describe and hash (repeatable)");
  facts->add_option("--resolve", gather.resolve, "a name to resolve on this node (repeatable)");
  facts->add_flag("--import-torch", gather.import_torch, "import torch (device count, NCCL): slower");
  facts->add_flag("--caches", gather.caches, "the job's cache directories (HF_HOME, TORCH_HOME, ...) here");
  facts->add_option("--container-image", gather.container_image, "also check this image (python probed inside)");
  facts->add_option("--container-runtime", gather.container_runtime,
                    "podman or docker (default: the installed one)");
  doctor::PortCheck port;
  auto* port_check = app->add_subcommand("port", "listen on a TCP port (master) or connect to one (the others)");
  port_check->add_option("--listen", port.listen_port);
  port_check->add_option("--expect", port.expect);
  port_check->add_option("--connect", port.connect_host);
  port_check->add_option("--port", port.connect_port);
  port_check->add_option("--seconds", port.seconds);
  doctor::ProbeOptions probe;
  bool pick_port = false;
  auto* bandwidth = app->add_subcommand("bw", "one round of doctor's bandwidth test: serve peers, send to one");
  bandwidth->add_flag("--pick-port", pick_port, "print a free TCP port (`port N`) and exit");
  bandwidth->add_option("--listen", probe.listen_port, "serve on this port");
  bandwidth->add_option("--accept", probe.accept, "connections to serve");
  std::vector<std::string> peers;
  bandwidth->add_option("--to", peers, "send to HOST:PORT (repeatable: one after the other)");
  bandwidth->add_option("--seconds", probe.seconds, "streaming time after the warm-up");
  bandwidth->add_option("--warmup", probe.warmup, "seconds not counted at the start of the stream");
  bandwidth->add_option("--timeout-ms", probe.timeout_ms, "bound on the whole round");
  doctor::SshViewOptions ssh_view;
  auto* ssh_view_op = app->add_subcommand("ssh-view", "what this node's ssh client and sshd do for each peer "
                                                      "(doctor's fast ssh check)");
  ssh_view_op->add_option("--kex", ssh_view.kex, "KexAlgorithms for the ring's first handshake");
  ssh_view_op->add_option("--reach-seconds", ssh_view.reach_seconds, "bound on the banner round");
  ssh_view_op->add_option("--in-flight", ssh_view.in_flight, "connections being made at once");
  ssh_view_op->add_option("--probe-port", ssh_view.probe_port, "mesh mode: listen on this port and connect to the "
                                                                "peers' (the run's token in the environment)");
  ssh_view_op->add_option("peers", ssh_view.peers, "the peers, the next node of the ring first");
  std::string cache_base;
  auto* cache_dir = app->add_subcommand("cache-dir", "make this node's private cache directory for "
                                                     "`launch --node-local-caches` and print it");
  cache_dir->add_option("--base", cache_base, "the directory (default /tmp/muster-cache-<uid>)");
  image::NodeImageOptions image_options;
  auto* image_op = app->add_subcommand("image", "this node's container runtime and image id; load an archive");
  image_op->add_option("--runtime", image_options.runtime);
  image_op->add_option("--image", image_options.image);
  image_op->add_option("--load", image_options.load, "load this archive first");
  image_op->add_option("--expect", image_options.expect, "the id the image must have after --load");
  image_op->add_option("--remove", image_options.remove, "delete this archive (and its directory)");
  if (auto code = parse_command_line(*app, args)) return *code;
  if (cache_dir->parsed()) {
    auto dir = launch::make_node_cache_dir(cache_base);
    if (!dir) return report_error(dir.error());
    fmt::print("{}\n", *dir);
    return 0;
  }
  if (image_op->parsed()) return image::run_node_image(image_options);
  if (ssh_view_op->parsed()) {
    ssh_view.token = doctor::probe_token_from_environment();
    fmt::print("{}", doctor::ssh_view(ssh_view));
    return 0;
  }
  if (bandwidth->parsed()) {
    for (const auto& text : peers) {
      auto peer = doctor::parse_probe_peer(text);
      if (!peer) return report_error(peer.error());
      probe.to.push_back(std::move(*peer));
    }
    probe.token = doctor::probe_token_from_environment();
    return run_bandwidth_round(probe, pick_port);
  }
  if (port_check->parsed()) {
    port.token = doctor::probe_token_from_environment();
    fmt::print("{}", doctor::run_port_check(port));
    return 0;
  }
  if (hosts->parsed()) return setup::hosts_block_op(options);
  if (lines->parsed()) return setup::add_lines_op(options);
  if (facts->parsed()) {
    fmt::print("{}\n", nlohmann::json(doctor::gather(gather)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return 0;
  }
  return setup::ssh_identity_op(options);
}

}  // namespace muster::cli
