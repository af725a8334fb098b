// The same software everywhere: python and its ML packages, the OS, kernel, NVIDIA driver and CUDA. A
// difference is reported with a table of which node has which value and the command that brings the odd nodes
// to the majority's version.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "doctor/checks/support.h"

namespace muster::doctor::detail {
namespace {

struct VersionItem {
  const char* label;
  bool from_python;  // unknown on a node whose python probe failed
  Severity severity;
  std::function<std::string(const NodeFacts&)> value;  // "" = absent
  std::function<std::string(const std::string& want)> fix;
};

std::string package(const NodeFacts& node, const std::string& name) {
  auto it = node.python.packages.find(name);
  return it == node.python.packages.end() ? "" : it->second;
}

// `pip install torch==2.3.0+cu121` needs PyTorch's index for local versions.
std::string pip_install(const std::string& name, const std::string& version) {
  auto plus = version.find("+cu");
  std::string index = plus == std::string::npos
                          ? ""
                          : " --index-url https://download.pytorch.org/whl/" + version.substr(plus + 1);
  return fmt::format("pip install {}=={}{}", name, version, index);
}

VersionItem python_package(const char* name) {
  return {name, true, Severity::error, [name](const NodeFacts& n) { return package(n, name); },
          [name](const std::string& want) { return pip_install(name, want); }};
}

std::vector<VersionItem> version_items() {
  std::vector<VersionItem> items = {
      {"python", true, Severity::error, [](const NodeFacts& n) { return n.python.version; },
       [](const std::string& want) {
         return fmt::format("install Python {} and point --python at it", want);
       }},
      python_package("torch"),
      {"torch_cuda", true, Severity::error, [](const NodeFacts& n) { return n.python.torch_cuda; },
       [](std::string want) {
         want.erase(std::remove(want.begin(), want.end(), '.'), want.end());
         return fmt::format(
             "pip install --force-reinstall torch==<the others' version> --index-url "
             "https://download.pytorch.org/whl/cu{}",
             want);
       }},
      {"torch_nccl", true, Severity::error, [](const NodeFacts& n) { return n.python.torch_nccl; },
       [](const std::string& want) {
         return fmt::format("install the torch build the other nodes have (it bundles NCCL {})", want);
       }},
  };
  for (const char* name : {"deepspeed", "accelerate", "transformers", "numpy"})
    items.push_back(python_package(name));
  items.push_back({"os", false, Severity::warning,
                   [](const NodeFacts& n) {
                     if (!n.os_pretty.empty() || n.os_id.empty()) return n.os_pretty;
                     return n.os_version.empty() ? n.os_id : n.os_id + " " + n.os_version;
                   },
                   [](const std::string& want) {
                     return fmt::format("run the same OS image ({}) on every node", want);
                   }});
  items.push_back(
      {"kernel", false, Severity::warning, [](const NodeFacts& n) { return n.kernel; },
       [](const std::string& want) { return fmt::format("boot kernel {} on every node", want); }});
  items.push_back({"driver", false, Severity::error,
                   [](const NodeFacts& n) { return n.gpus.empty() ? std::string() : n.gpus[0].driver; },
                   [](const std::string& want) { return fmt::format("install NVIDIA driver {}", want); }});
  items.push_back({"cuda_driver", false, Severity::error,
                   [](const NodeFacts& n) { return n.cuda_driver_version; },
                   [](const std::string& want) {
                     return fmt::format("install the NVIDIA driver that supports CUDA {}", want);
                   }});
  items.push_back(
      {"nvcc", false, Severity::error, [](const NodeFacts& n) { return n.nvcc_version; },
       [](const std::string& want) { return fmt::format("install CUDA toolkit {} (nvcc)", want); }});
  return items;
}

bool python_known(const NodeFacts& node) {
  return node.python.error.empty();
}

// One item across nodes: nothing when every node agrees (or none has it); else an error/warning.
std::optional<Finding> compare_item(const CheckInput& in, const VersionItem& item, std::string& agreed) {
  std::vector<std::optional<std::string>> values(in.size());
  bool anyone_has_it = false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (item.from_python && !python_known(in.facts[i])) continue;
    std::string value = item.value(in.facts[i]);
    anyone_has_it |= !value.empty();
    values[i] = value.empty() ? "(none)" : value;
  }
  if (!anyone_has_it) return std::nullopt;
  auto groups = group_values(values, in.master());
  if (groups.size() < 2) {
    agreed += fmt::format("{}{} {}", agreed.empty() ? "" : ", ", item.label, groups[0].value);
    return std::nullopt;
  }
  // The value to install: the majority's, or the most common actual version when most nodes lack it.
  auto want =
      std::find_if(groups.begin(), groups.end(), [](const ValueGroup& g) { return g.value != "(none)"; });
  std::vector<std::size_t> odd;
  std::string table;
  for (const auto& group : groups) {
    table += fmt::format("\n  {:<24} {}", group.value, node_list(in, group.nodes));
    if (group.value != want->value) odd.insert(odd.end(), group.nodes.begin(), group.nodes.end());
  }
  std::sort(odd.begin(), odd.end());
  return Finding{
      item.severity, "versions", odd.size() == 1 ? in.names[odd[0]] : "",
      fmt::format("{} is not the same on every node (odd: {}):{}", item.label, node_list(in, odd), table),
      fmt::format("on {}: {}", node_list(in, odd), item.fix(want->value))};
}

}  // namespace

void check_versions(const CheckInput& in, Findings& out) {
  bool clean = true;
  std::string image;  // the python facts come from inside this image (--container-image)
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& container = in.facts[i].container;
    if (!container.image.empty()) image = container.image;
    if (python_known(in.facts[i])) continue;
    if (!container.image.empty() && container.image_id.empty()) continue;  // check_containers says why
    clean = false;
    out.push_back(
        {Severity::error, "versions", in.names[i],
         fmt::format("python could not be inspected on {}{}: {}", in.names[i],
                     image.empty() ? "" : " in " + image, in.facts[i].python.error),
         image.empty() ? "install python3 there, or pass --python with the interpreter the job uses"
                       : "pass --python with the interpreter the image has"});
  }
  std::string agreed;
  for (const auto& item : version_items()) {
    if (auto finding = compare_item(in, item, agreed)) {
      clean = false;
      out.push_back(std::move(*finding));
    }
  }
  if (clean) {
    out.push_back({Severity::ok, "versions", "",
                   fmt::format("identical on every node{}: {}", image.empty() ? "" : " (python inside " + image + ")",
                               agreed),
                   ""});
  }
}

}  // namespace muster::doctor::detail
