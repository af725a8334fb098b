#include "doctor/python_probe.h"

#include <fmt/format.h>

namespace muster::doctor {

std::string python_probe_script(bool import_torch) {
  std::string names;
  for (auto name : probed_packages) names += fmt::format("'{}',", name);
  return fmt::format(R"PY(import json, sys
r = {{"version": "%d.%d.%d" % tuple(sys.version_info[:3]), "packages": {{}}, "torch_cuda_devices": -1}}
try:
    import importlib.metadata as md
    for n in [{}]:
        try:
            r["packages"][n] = md.version(n)
        except Exception:
            pass
except Exception as e:
    r["error"] = "importlib.metadata: %s" % e
for n in ("nvidia-nccl-cu12", "nvidia-nccl-cu11"):
    try:
        r["torch_nccl"] = md.version(n)
        break
    except Exception:
        pass
if "torch" in r["packages"] and not {}:
    try:
        import importlib.util, os
        spec = importlib.util.find_spec("torch")
        v = {{}}
        with open(os.path.join(spec.submodule_search_locations[0], "version.py")) as f:
            exec(f.read(), v)
        r["torch_cuda"] = v.get("cuda") or ""
    except Exception as e:
        r["error"] = "torch/version.py: %s" % e
if "torch" in r["packages"] and {}:
    try:
        import torch
        r["torch_cuda"] = torch.version.cuda or ""
        r["torch_cuda_devices"] = torch.cuda.device_count()
        try:
            v = torch.cuda.nccl.version()
            r["torch_nccl"] = ".".join(str(p) for p in v) if isinstance(v, tuple) else str(v)
        except Exception:
            pass
    except Exception as e:
        r["error"] = "import torch: %s" % e
sys.stdout.write("\n" + json.dumps(r) + "\n")
)PY",
                     names, import_torch ? "True" : "False", import_torch ? "True" : "False");
}

void parse_python_probe(std::string_view output, PythonFacts& facts) {
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r' || output.back() == ' ')) {
    output.remove_suffix(1);
  }
  size_t start = output.rfind('\n');
  std::string_view line = start == std::string_view::npos ? output : output.substr(start + 1);
  auto json = nlohmann::json::parse(line, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    facts.error = "the probe printed no JSON object";
    return;
  }
  std::string path = facts.path;
  from_json(json, facts);
  facts.path = path;
}

}  // namespace muster::doctor
