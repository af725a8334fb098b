// doctor's node operations (head/node_op.h), each the flags of one `muster node` command and what runs it:
// `facts` (the facts round: gather.h, and the markers of the cross-node checks) and `cross` (the cross round:
// cross_checks.h). The bandwidth rounds' `bw` is bandwidth/probe.h's.
#pragma once

#include <string>
#include <vector>

#include "doctor/node/cross_checks.h"
#include "doctor/node/gather.h"
#include "util/result.h"

namespace muster::doctor {

// `muster node facts`: writes this run's markers (write_markers; with mark_caches into the caches' directories
// too), then prints the node's facts as one JSON line.
struct FactsOp {
  static constexpr const char* kName = "facts";
  static constexpr const char* kHelp = "print what `muster doctor` knows about this node, as one JSON line";
  GatherOptions gather;
  MarkerOptions markers;  // its cache_dirs come from the facts (mark_caches)
  bool mark_caches = false;
  template <typename Self, typename Visit>
  static void fields(Self& op, Visit& visit) {
    visit(op.gather.python, "--python", "the interpreter to probe");
    visit(op.gather.paths, "--path", "a directory to describe and hash (repeatable)");
    visit(op.gather.resolve, "--resolve", "a name to resolve on this node (repeatable)");
    visit(op.gather.import_torch, "--import-torch", "import torch (device count, NCCL): slower");
    visit(op.gather.caches, "--caches", "the job's cache directories (HF_HOME, TORCH_HOME, ...) here");
    visit(op.markers.marker, "--marker", "write this run's marker files (doctor/node/cross_checks.h)");
    visit(op.markers.paths, "--mark-path", "write the marker into this path (node 0)");
    visit(op.mark_caches, "--mark-caches", "write the marker, with --node-index, into the caches' directories");
    visit(op.markers.node_index, "--node-index", "this node's index (the caches' markers)");
    visit(op.gather.container_image, "--container-image", "also check this image (python probed inside)");
    visit(op.gather.container_runtime, "--container-runtime", "podman or docker (default: the installed one)");
  }
  static Result<int> run(const FactsOp& op);
  bool operator==(const FactsOp&) const = default;
};

// `muster node cross`: run_cross_checks, its lines printed. The run's token comes from the environment
// (kProbeTokenEnv), not the command line, which `ps` shows everyone.
struct CrossOp {
  static constexpr const char* kName = "cross";
  static constexpr const char* kHelp = "doctor's cross-node checks on this node, in one round: ssh to the peers, "
                                       "shared paths and caches, the master port";
  CrossOptions cross;          // its master_host/master_port come from master_connect, its token from the environment
  std::string master_connect;  // HOST:PORT
  template <typename Self, typename Visit>
  static void fields(Self& op, Visit& visit) {
    visit(op.cross.peers, "--peer", "the fast ssh check's peers, the ring's next node first");
    visit(op.cross.kex, "--kex", "KexAlgorithms for the ring's first handshake");
    visit(op.cross.probe_port, "--probe-port", "the ssh check's listener (the run's token in the environment)");
    visit(op.cross.marker, "--marker", "this run's marker file name");
    visit(op.cross.seen_paths, "--seen", "a path to look for node 0's marker in");
    visit(op.cross.cache_dirs, "--cache-dir", "a cache directory to look for every node's markers in");
    visit(op.cross.master_listen, "--master-listen", "listen on this port (node 0)");
    visit(op.cross.master_expect, "--master-expect", "connections node 0 waits for");
    visit(op.master_connect, "--master-connect", "connect to HOST:PORT (the others)");
    visit(op.cross.seconds, "--seconds", "bound on the connection round");
  }
  static Result<int> run(const CrossOp& op);
  bool operator==(const CrossOp&) const = default;
};

}  // namespace muster::doctor
