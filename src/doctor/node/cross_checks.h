// `muster node cross`: the node half of doctor's cross-node checks, all in one process per node and one round
// (examine.cc; the facts round before it wrote the markers, a last round removes them):
//   - the fast ssh check (ssh/view.h): this node's view of every peer, a TCP link to every peer's probe listener
//     while serving its own, and the ring's real ssh;
//   - shared filesystems: whether the marker node 0 wrote into each path is here (`seen PATH`);
//   - shared caches: whose markers are in each of the job's cache directories (`cache INDEX WRITER`);
//   - the master port: node 0 listens on it (`master accepted N`, or `master in-use WHY`), the others connect
//     to the address the head reached node 0 on (`master reached`, `master unreachable WHY`).
// Every listener accepts only connections that present the run's token (probe_token.h). One round instead of the
// eight these took one after the other: at 64 nodes on one machine each round of starting a process on every
// node cost 0.1-0.2 s.
#pragma once

#include <string>
#include <vector>

namespace muster::doctor {

struct CrossOptions {
  std::vector<std::string> peers;  // the fast ssh check's peers, the ring's next node first (empty: no ssh check)
  std::string kex;                 // KexAlgorithms for the ring's first handshake ("": ssh's own)
  int probe_port = 0;              // the ssh check's listener on every node
  std::string marker;              // the name of this run's marker files
  std::vector<std::string> seen_paths;  // look for `marker` (node 0 wrote it) in each
  std::vector<std::string> cache_dirs;  // look for `marker-<node>` files in each (every node wrote its own)
  int master_listen = 0;           // > 0: listen on this port for `master_expect` peers (node 0)
  int master_expect = 0;
  std::string master_host;         // else, with master_port > 0: connect there
  int master_port = 0;
  std::string token;               // this run's (probe_token.h)
  int seconds = 10;                // bound on the connection round
  bool operator==(const CrossOptions&) const = default;
};

// The facts round's side (`muster node facts --marker`): node 0 writes `marker` into each shared-fs path, every
// node `marker-<its index>` into each of its caches' directories (a directory it cannot write is skipped: that
// node's cache is then not seen by anyone, which is the truth for a cache it cannot write either).
struct MarkerOptions {
  std::string marker;
  std::vector<std::string> paths;
  std::vector<std::string> cache_dirs;
  int node_index = 0;
  bool operator==(const MarkerOptions&) const = default;
};
void write_markers(const MarkerOptions& options);

// Runs everything asked for and returns the lines (each ending in '\n').
std::string run_cross_checks(const CrossOptions& options);

}  // namespace muster::doctor
