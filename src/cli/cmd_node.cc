// `muster node <op>`: hidden; what the head's features run on every node: setup's file edits and key
// (setup/node_ops.h), doctor's facts, cross-node checks and bandwidth probes (doctor/node/gather.h,
// doctor/node/cross_checks.h, doctor/bandwidth/probe.h),
// launch's node-local cache directory (launch/node_caches.h) and image push's image id and load
// (image/node_image.h).
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "doctor/bandwidth/probe.h"
#include "doctor/node/gather.h"
#include "doctor/probe_token.h"
#include "doctor/node/cross_checks.h"
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
  doctor::MarkerOptions markers;
  bool mark_caches = false;
  facts->add_option("--marker", markers.marker, "write this run's marker files (doctor/node/cross_checks.h)");
  facts->add_option("--mark-path", markers.paths, "write the marker into this path (node 0)");
  facts->add_flag("--mark-caches", mark_caches, "write the marker, with --node-index, into the caches' directories");
  facts->add_option("--node-index", markers.node_index, "this node's index (the caches' markers)");
  facts->add_option("--container-image", gather.container_image, "also check this image (python probed inside)");
  facts->add_option("--container-runtime", gather.container_runtime,
                    "podman or docker (default: the installed one)");
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
  doctor::CrossOptions cross;
  std::string master_connect;
  auto* cross_op = app->add_subcommand("cross", "doctor's cross-node checks on this node, in one round: ssh "
                                                "to the peers, shared paths and caches, the master port");
  cross_op->add_option("--peer", cross.peers, "the fast ssh check's peers, the ring's next node first");
  cross_op->add_option("--kex", cross.kex, "KexAlgorithms for the ring's first handshake");
  cross_op->add_option("--probe-port", cross.probe_port, "the ssh check's listener (the run's token in the environment)");
  cross_op->add_option("--marker", cross.marker, "this run's marker file name");
  cross_op->add_option("--seen", cross.seen_paths, "a path to look for node 0's marker in");
  cross_op->add_option("--cache-dir", cross.cache_dirs, "a cache directory to look for every node's markers in");
  cross_op->add_option("--master-listen", cross.master_listen, "listen on this port (node 0)");
  cross_op->add_option("--master-expect", cross.master_expect, "connections node 0 waits for");
  cross_op->add_option("--master-connect", master_connect, "connect to HOST:PORT (the others)");
  cross_op->add_option("--seconds", cross.seconds, "bound on the connection round");
  cross_op->add_option("--in-flight", cross.in_flight, "connections being made at once");
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
  if (cross_op->parsed()) {
    if (!master_connect.empty()) {
      auto peer = doctor::parse_probe_peer(master_connect);
      if (!peer) return report_error(peer.error());
      cross.master_host = peer->host;
      cross.master_port = peer->port;
    }
    cross.token = doctor::probe_token_from_environment();
    fmt::print("{}", doctor::run_cross_checks(cross));
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
  if (hosts->parsed()) return setup::hosts_block_op(options);
  if (lines->parsed()) return setup::add_lines_op(options);
  if (facts->parsed()) {
    auto found = doctor::gather(gather);
    if (mark_caches) {
      for (const auto& cache : found.caches) markers.cache_dirs.push_back(cache.probe);
    }
    doctor::write_markers(markers);
    fmt::print("{}\n", nlohmann::json(found).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return 0;
  }
  return setup::ssh_identity_op(options);
}

}  // namespace muster::cli
