#include "doctor/node/python_probe.h"

#include <fmt/format.h>

namespace muster::doctor {

std::string python_probe_script(bool import_torch) {
  std::string names;
  for (auto name : probed_packages) names += fmt::format("'{}',", name);
  // Versions come from the distributions' metadata directories on sys.path (`NAME-VERSION.dist-info`, PEP 376;
  // `NAME-VERSION[-pyX.Y].egg-info`), the first one on the path winning as for importlib.metadata, whose import
  // alone costs ~50 ms of a probe that runs on every node (json too: the output is written by hand).
  return fmt::format(R"PY(import os, sys
r = {{"version": "%d.%d.%d" % tuple(sys.version_info[:3]), "packages": {{}}, "torch_cuda_devices": -1}}
def norm(n):
    return n.lower().replace("_", "-").replace(".", "-")
wanted = {{norm(n): n for n in [{}]}}
found = {{}}
for d in sys.path:
    try:
        entries = os.listdir(d or ".")
    except OSError:
        continue
    for e in entries:
        if e.endswith(".dist-info"):
            stem = e[:-10]
        elif e.endswith(".egg-info"):
            stem = e[:-9]
            if "-py" in stem:
                stem = stem[:stem.rindex("-py")]
        else:
            continue
        if "-" not in stem:
            continue
        name, version = stem.split("-", 1)
        n = wanted.get(norm(name))
        if n and n not in found:
            found[n] = version
r["packages"] = found
for n in ("nvidia-nccl-cu12", "nvidia-nccl-cu11"):
    if n in found:
        r["torch_nccl"] = found[n]
        break
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
def enc(v):
    if isinstance(v, dict):
        return "{{" + ", ".join("%s: %s" % (enc(k), enc(x)) for k, x in v.items()) + "}}"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    s = str(v).replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if " " <= c < "\x7f" else "\\u%04x" % ord(c) if ord(c) < 0x10000 else "?" for c in s) + '"'
sys.stdout.write("\n" + enc(r) + "\n")
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
