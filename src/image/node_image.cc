#include "image/node_image.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "container/node_probe.h"
#include "container/runtime_argv.h"
#include "posix/clock.h"
#include "posix/dir.h"
#include "posix/file.h"
#include "posix/run_commands.h"

namespace muster::image {
namespace {

constexpr int kInspectTimeoutMs = 30'000;
constexpr int kLoadTimeoutMs = 30 * 60'000;  // a large image on a slow disk

std::string image_id(container::Runtime runtime, const std::string& image) {
  auto outcome = posix::run_commands({container::image_id_argv(runtime, image)}, kInspectTimeoutMs)[0];
  return outcome.succeeded() ? container::normalize_image_id(outcome.out) : "";
}

// Why the archive at `path` may not be loaded, or "": it must be this user's regular file (no link, one name) in a
// directory of this user's that nobody else can enter (the push's private directory), itself no link, in a
// directory that others cannot rename it out of (not writable by them, or sticky like /tmp). Otherwise another
// user could have put their image there, to run as the job's with its mounts, tokens and GPUs.
std::string why_not_private(const std::string& path) {
  size_t slash = path.rfind('/');
  size_t up = slash == std::string::npos || slash == 0 ? std::string::npos : path.rfind('/', slash - 1);
  if (up == std::string::npos) return "not in a directory of its own";
  std::string name = path.substr(slash + 1), dir = path.substr(up + 1, slash - up - 1);
  auto parent = posix::Dir::open(up == 0 ? "/" : path.substr(0, up));
  if (!parent) return parent.error().message;
  auto above = parent->stat_self();
  uint32_t me = posix::effective_uid();
  if (!above || (above->uid != me && above->uid != 0) || ((above->mode & 0022) != 0 && (above->mode & 01000) == 0)) {
    return "the directory above it is writable by others (and not sticky), or not yours";
  }
  auto opened = parent->open_dir(dir);  // never through a link
  if (!opened) return "its directory: " + opened.error().message;
  auto st = opened->stat_self();
  if (!st || st->uid != me || (st->mode & 077) != 0) return "its directory is not yours alone (0700)";
  auto file = opened->stat(name);
  if (!file || !*file || !(*file)->is_file() || (*file)->uid != me || (*file)->links != 1) {
    return "it is not a file of yours alone";
  }
  return "";
}

NodeImageState load(container::Runtime runtime, const NodeImageOptions& options, NodeImageState state) {
  if (auto why = why_not_private(options.load); !why.empty()) {
    state.error = fmt::format("refusing to load {}: {}", options.load, why);
    return state;
  }
  int64_t start = posix::monotonic_ms();
  auto loaded = posix::run_commands({container::load_argv(runtime, options.load)}, kLoadTimeoutMs)[0];
  state.load_ms = posix::monotonic_ms() - start;
  if (!loaded.succeeded()) {
    state.error =
        fmt::format("{} load failed: {}", container::runtime_name(runtime), posix::describe_failure(loaded));
    return state;
  }
  state.id = image_id(runtime, options.image);
  if (state.id != options.expect) {  // the archive named it otherwise: the id is what matters, name it
    (void)posix::run_commands({container::tag_argv(runtime, options.expect, options.image)}, kInspectTimeoutMs);
    state.id = image_id(runtime, options.image);
  }
  if (state.id != options.expect) {
    state.error = fmt::format("after the load, {} has id {} here, not {}", options.image,
                              state.id.empty() ? "none" : state.id.substr(0, 12), options.expect.substr(0, 12));
  }
  return state;
}

}  // namespace

bool remove_pushed_archive(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return false;
  std::string dir = path.substr(0, slash);
  size_t parent = dir.rfind('/');
  if (parent == std::string::npos || parent == 0) return false;
  auto up = posix::Dir::open(dir.substr(0, parent));
  if (!up) return false;
  auto opened = up->open_dir(dir.substr(parent + 1));  // never through a link
  if (!opened) return false;
  if (auto marker = opened->stat(kHeadCacheMarker); !marker || *marker) return false;  // the head's cache
  // Only the archive, by name; then the directory, if that left it empty (the sync made it for the archive).
  if (auto st = opened->stat(path.substr(slash + 1)); st && *st && (*st)->is_file()) {
    (void)opened->remove(path.substr(slash + 1), false);
  }
  (void)up->remove(dir.substr(parent + 1), true);
  return true;
}

std::string to_json(const NodeImageState& state) {
  nlohmann::json json = {{"runtime", state.runtime}, {"id", state.id}, {"error", state.error},
                         {"load_ms", state.load_ms}};
  return json.dump();
}

NodeImageState node_image_state_from_json(const std::string& text) {
  NodeImageState state;
  try {
    auto json = nlohmann::json::parse(text);
    state.runtime = json.value("runtime", "");
    state.id = json.value("id", "");
    state.error = json.value("error", "");
    state.load_ms = json.value("load_ms", int64_t{-1});
  } catch (const nlohmann::json::exception& e) {
    state.error = fmt::format("unreadable answer from the node: {}", e.what());
  }
  return state;
}

int run_node_image(const NodeImageOptions& options) {
  NodeImageState state;
  if (!options.remove.empty()) {
    (void)remove_pushed_archive(options.remove);
    fmt::print("{}\n", to_json(state));
    return 0;
  }
  auto runtime = container::installed_runtime(options.runtime);
  if (!runtime) {
    state.error = options.runtime.empty() ? "neither podman nor docker is installed (not in PATH)"
                                          : options.runtime + " is not installed (not in PATH)";
  } else {
    state.runtime = container::runtime_name(*runtime);
    state = options.load.empty() ? NodeImageState{state.runtime, image_id(*runtime, options.image), "", -1}
                                 : load(*runtime, options, state);
  }
  fmt::print("{}\n", to_json(state));
  return state.error.empty() ? 0 : 1;
}

Result<int> NodeImageOp::run(const NodeImageOp& op) { return run_node_image(op.options); }

}  // namespace muster::image
