// The job's containers (`--container-image`): a runtime on every node, the same image id everywhere (naming the
// nodes that lack it and those that hold another image under the name), and what passing the GPUs needs where
// there are GPUs. The versions inside the image are check_versions' (the python facts come from inside).
#include <fmt/format.h>

#include "container/gpu_flags.h"
#include "doctor/checks/support.h"

namespace muster::doctor::detail {
namespace {

std::string short_id(const std::string& id) { return id.substr(0, 12); }

// "node1,node3": for a -w argument in a fix.
std::string hostlist(const CheckInput& in, const std::vector<std::size_t>& nodes) {
  std::string text;
  for (std::size_t i : nodes) text += (text.empty() ? "" : ",") + in.names[i];
  return text;
}

void check_runtimes(const CheckInput& in, Findings& out, bool& usable) {
  usable = true;
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& container = in.facts[i].container;
    if (!container.runtime.empty() && container.error.empty()) continue;
    usable = false;
    if (container.runtime.empty()) {
      missing.push_back(i);
    } else {
      out.push_back({Severity::error, "containers", in.names[i],
                     fmt::format("{} cannot inspect images: {}", container.runtime, container.error),
                     fmt::format("check that `{} images` works on {} for the user muster runs as",
                                 container.runtime, in.names[i])});
    }
  }
  if (!missing.empty()) {
    out.push_back({Severity::error, "containers", node_list(in, missing),
                   fmt::format("no container runtime on {} ({})", node_list(in, missing),
                               in.facts[missing[0]].container.error),
                   "sudo apt-get install podman (or docker.io), or pass --container-runtime with the one installed"});
  }
}

void check_image_ids(const CheckInput& in, Findings& out, const std::string& image) {
  std::vector<std::optional<std::string>> ids(in.size());
  std::vector<std::size_t> lacking;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& container = in.facts[i].container;
    if (container.runtime.empty() || !container.error.empty()) continue;
    if (container.image_id.empty()) lacking.push_back(i);
    else ids[i] = container.image_id;
  }
  auto groups = group_values(ids, in.master());
  if (!lacking.empty()) {
    out.push_back({Severity::error, "containers", node_list(in, lacking),
                   fmt::format("{} is not on {}", image, node_list(in, lacking)),
                   fmt::format("muster image push {} -w {}", image, hostlist(in, lacking))});
  }
  for (std::size_t g = 1; g < groups.size(); ++g) {
    out.push_back({Severity::error, "containers", node_list(in, groups[g].nodes),
                   fmt::format("{} differs: {} has {}, {} has {}", image, node_list(in, groups[g].nodes),
                               short_id(groups[g].value), node_list(in, groups[0].nodes), short_id(groups[0].value)),
                   fmt::format("muster image push {} -w {} (from the machine whose {} is the one to run)", image,
                               hostlist(in, groups[g].nodes), image)});
  }
  if (lacking.empty() && groups.size() == 1) {
    out.push_back({Severity::ok, "containers", "",
                   in.size() == 1 ? fmt::format("{} is {} on {}", image, short_id(groups[0].value), in.names[0])
                                  : fmt::format("{} is {} on all {} nodes", image, short_id(groups[0].value), in.size()),
                   ""});
  }
}

void check_gpu_runtime(const CheckInput& in, Findings& out) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& container = in.facts[i].container;
    auto runtime = container::parse_runtime(container.runtime);
    if (!runtime) continue;
    container::NodeGpuFacts gpus{container.gpu_devices, container.gpu_cdi, container.gpu_toolkit};
    std::string missing = container::missing_gpu_runtime(*runtime, gpus);
    if (missing.empty()) continue;
    out.push_back({Severity::error, "containers", in.names[i],
                   fmt::format("{} has NVIDIA GPUs, but {}", in.names[i], missing.substr(0, missing.find(':'))),
                   missing.substr(missing.find(':') + 2)});
  }
}

}  // namespace

void check_containers(const CheckInput& in, Findings& out) {
  std::string image;
  for (const auto& facts : in.facts) image = image.empty() ? facts.container.image : image;
  if (image.empty()) return;
  bool usable = false;
  check_runtimes(in, out, usable);
  check_image_ids(in, out, image);
  check_gpu_runtime(in, out);
}

}  // namespace muster::doctor::detail
