// The node's side of `muster image push` (run there as `muster node image`): which runtime this node has and the
// id it holds for an image; given an archive that the sync put on the node, `load` it and make sure the image is
// there under its name with the expected id; and, once every node has loaded (a shared home holds one archive
// for all), remove the archive. Prints one JSON line.
#pragma once

#include <string>

#include "util/result.h"

namespace muster::image {

struct NodeImageOptions {
  std::string runtime;  // "" = podman if installed, else docker
  std::string image;    // the name
  std::string load;     // an archive to load first ("" = only report)
  std::string expect;   // the id the image must have after the load
  std::string remove;   // an archive (and the directory holding it, once empty) to delete, unless it is the
                        // head's (remove_pushed_archive); nothing else is done

  bool operator==(const NodeImageOptions&) const = default;
};

// What the node answers (also what the head parses): runtime "" when none is installed; id "" when the image
// is not there; error set when something failed.
struct NodeImageState {
  std::string runtime;
  std::string id;
  std::string error;
  int64_t load_ms = -1;  // how long the load took, when there was one
};

// While the nodes remove their archives, the head keeps this file in its own cache directory of the archive
// (push.h): a node that finds it next to the archive sees the head's cache itself (a home directory shared with
// the head, or the head's own machine) and leaves it alone.
inline constexpr const char* kHeadCacheMarker = ".muster-head-cache";

// Deletes the archive `path` (that file alone, by name, never through a link) and then the directory holding it
// if that left it empty (the sync made it for the archive), unless that directory holds kHeadCacheMarker.
// Returns whether it got that far. Before a load, the archive must be this user's alone in a private directory
// (checked on the node: load()).
bool remove_pushed_archive(const std::string& path);

std::string to_json(const NodeImageState& state);
NodeImageState node_image_state_from_json(const std::string& text);

// Never fails as a whole: what went wrong is in the state's error. Returns the exit code (0 when error is empty).
int run_node_image(const NodeImageOptions& options);

// `muster node image` (a node operation, head/node_op.h): run_node_image.
struct NodeImageOp {
  static constexpr const char* kName = "image";
  static constexpr const char* kHelp = "this node's container runtime and image id; load an archive";
  NodeImageOptions options;
  template <typename Self, typename Visit>
  static void fields(Self& op, Visit& visit) {
    visit(op.options.runtime, "--runtime", "podman or docker (default: the installed one)");
    visit(op.options.image, "--image", "the image's name");
    visit(op.options.load, "--load", "load this archive first");
    visit(op.options.expect, "--expect", "the id the image must have after --load");
    visit(op.options.remove, "--remove", "delete this archive (and its directory)");
  }
  static Result<int> run(const NodeImageOp& op);
  bool operator==(const NodeImageOp&) const = default;
};

}  // namespace muster::image
