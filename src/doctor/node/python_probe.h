// The Python side of doctor: a script run as `<python> -c <script>` on the node that prints one JSON object
// (interpreter version, installed distributions' versions, torch's CUDA/NCCL), and its parser. Pure: the
// gatherer runs the interpreter (node/gather.cc).
//
// The script reads versions with importlib.metadata and imports nothing heavy but torch (for
// torch.version.cuda, torch.cuda.nccl.version() and torch.cuda.device_count(), each guarded), so it costs
// about one `import torch`.
#pragma once

#include <string>
#include <string_view>

#include "doctor/node/node_facts.h"

namespace muster::doctor {

// The distributions whose versions the probe reports when installed.
inline constexpr std::string_view probed_packages[] = {
    "torch",   "torchvision",      "deepspeed",        "accelerate",       "transformers", "numpy",
    "triton",  "nvidia-nccl-cu11", "nvidia-nccl-cu12", "nvidia-nccl-cu13", "flash-attn",   "apex",
};

// The Python source given to `-c`.
// `import_torch`: also import torch for torch.cuda.device_count() and its NCCL (slow: ~1.5 s of CPU). Without
// it, the CUDA build comes from torch/version.py and NCCL from the nvidia-nccl wheel's metadata.
std::string python_probe_script(bool import_torch);

// Fills `facts` (all but path) from the probe's stdout: the last line that is a JSON object, so that noise
// printed by sitecustomize or torch before it is ignored. Sets facts.error when there is no such line.
void parse_python_probe(std::string_view output, PythonFacts& facts);

}  // namespace muster::doctor
