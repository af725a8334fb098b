// What nvidia-smi and nvcc print, parsed. Pure: the gatherer runs the tools (node/gather.cc); these functions
// are unit-tested on recorded outputs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "doctor/node/node_facts.h"

namespace muster::doctor {

// The arguments of the GPU query whose output parse_gpu_query() reads.
inline constexpr std::string_view gpu_query_fields = "index,name,memory.total,uuid,driver_version";

// Output of `nvidia-smi --query-gpu=index,name,memory.total,uuid,driver_version --format=csv,noheader,nounits`:
// one line per GPU, "0, NVIDIA H100 80GB HBM3, 81559, GPU-…, 550.54.15". "[N/A]" (and "N/A") leaves a field
// at its default; a comma inside the name is kept. Lines without five fields are skipped.
std::vector<Gpu> parse_gpu_query(std::string_view text);

// The CUDA version from plain `nvidia-smi`'s header ("... Driver Version: 550.54.15     CUDA Version: 12.4"):
// "12.4"; empty when absent (or "N/A").
std::string parse_cuda_version(std::string_view header);

// The release from `nvcc --version` ("Cuda compilation tools, release 12.4, V12.4.131"): "12.4"; empty when
// absent.
std::string parse_nvcc_release(std::string_view text);

}  // namespace muster::doctor
