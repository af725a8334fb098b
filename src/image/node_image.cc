#include "image/node_image.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "container/node_probe.h"
#include "container/runtime_argv.h"
#include "posix/clock.h"
#include "posix/dir.h"
#include "posix/run_commands.h"

namespace muster::image {
namespace {

constexpr int kInspectTimeoutMs = 30'000;
constexpr int kLoadTimeoutMs = 30 * 60'000;  // a large image on a slow disk

std::string image_id(container::Runtime runtime, const std::string& image) {
  auto outcome = posix::run_commands({container::image_id_argv(runtime, image)}, kInspectTimeoutMs)[0];
  return outcome.succeeded() ? container::normalize_image_id(outcome.out) : "";
}

NodeImageState load(container::Runtime runtime, const NodeImageOptions& options, NodeImageState state) {
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
  auto opened = posix::Dir::open(dir);
  if (!opened) return false;
  if (auto marker = opened->stat(kHeadCacheMarker); !marker || *marker) return false;  // the head's cache
  if (auto names = opened->names()) {
    for (const auto& name : *names) (void)opened->remove(name, false);
  }
  size_t parent = dir.rfind('/');
  if (parent == std::string::npos || parent == 0) return true;
  if (auto up = posix::Dir::open(dir.substr(0, parent))) (void)up->remove(dir.substr(parent + 1), true);
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
