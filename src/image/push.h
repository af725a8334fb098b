// `muster image push IMAGE -w ...`: copies a local image to every node that lacks it, for servers without a
// registry or internet (what the how-tos do by hand with `docker save`, scp and `docker load` per server):
//   1. the image's id here (`podman|docker image inspect`) and on every node (`muster node image`): nodes that
//      already hold the same id are skipped, nodes holding another image under the name are named;
//   2. `save` to an archive in ~/.cache/muster/images/<id>/ (once per id: the archive of an id is always the
//      same bytes), unless already there; only the last image pushed keeps its archive there;
//   3. the archive goes to the nodes that need it with `muster sync`'s machinery: read once, relay chain from 3
//      nodes on (each link crossed once), hash-verified on every node, progress on the terminal; into a private
//      directory (0700; with --stage DIR a fresh one below DIR per push, random name, made without following
//      links) that the node checks is its user's before it loads;
//   4. `load` on those nodes in parallel, each checking the id it then holds, and the archives removed, except
//      on a node that sees the head's own cache at that path (a shared home: node_image.h kHeadCacheMarker).
// The entry point of the command; the node side is node_image.h.
#pragma once

#include <string>
#include <vector>

#include "head/connect.h"
#include "util/result.h"

namespace muster::image {

struct PushOptions {
  head::ConnectOptions connect;
  std::string image;
  // On the nodes: "" = podman if installed, else docker (each node its own). Here: whichever holds the image,
  // this one first.
  std::string runtime;
  std::string stage;    // on the nodes, a fresh private directory per push goes below it; "" = the path of
                        // the head's cache
  std::string fanout = "auto";  // as muster sync's
  bool quiet = false;
};

struct NodePush {
  std::string node;
  enum class Outcome { had_it, loaded, failed } outcome = Outcome::failed;
  std::string error;
  int64_t load_ms = -1;
};

struct PushReport {
  std::string id;
  uint64_t archive_bytes = 0;
  int64_t save_ms = -1;  // -1: the archive was already in the cache
  int64_t send_ms = 0;
  std::vector<NodePush> nodes;
};

// Fails when the image is not here, when nodes cannot be reached, or when any node did not end up with the
// image (after printing what happened on each).
Result<PushReport> run_image_push(const PushOptions& options);

}  // namespace muster::image
