// gpu-ecc: GPU memory that failed — uncorrectable ECC errors since the driver loaded (an error: results computed
// there may be wrong) and over the GPU's life (a warning), row remaps pending or failed (A100 and later), retired
// pages pending or counted (before A100).
#include <fmt/format.h>

#include "doctor/gpu/gpu_findings.h"

namespace muster::doctor::gpu_detail {
namespace {

std::string reset_fix(const GpuHealth& gpu) {
  return fmt::format("reset the GPU once nothing runs on it (sudo nvidia-smi -r {}) or reboot the node, so the bad "
                     "memory is remapped; then `nvidia-smi -q {} -d ECC,ROW_REMAPPER`; have it replaced (RMA) if "
                     "the errors come back",
                     gpu_flag(gpu), gpu_flag(gpu));
}

void check_gpu(const std::string& node, const GpuHealth& gpu, Findings& out) {
  std::string label = gpu_label(gpu);
  if (gpu.ecc_volatile_uncorrected > 0) {
    out.push_back({Severity::error, "gpu-ecc", node,
                   fmt::format("{}: {} uncorrectable ECC error(s) since the driver loaded ({} over its life): its "
                               "memory returned data ECC could not correct, so what ran there may have computed "
                               "wrong results or crashed",
                               label, gpu.ecc_volatile_uncorrected, std::max<int64_t>(gpu.ecc_aggregate_uncorrected, 0)),
                   reset_fix(gpu)});
  } else if (gpu.ecc_aggregate_uncorrected > 0) {
    out.push_back({Severity::warning, "gpu-ecc", node,
                   fmt::format("{}: {} uncorrectable ECC error(s) over its life (none since the driver loaded): its "
                               "memory has failed before",
                               label, gpu.ecc_aggregate_uncorrected),
                   fmt::format("watch it: nvidia-smi -q {} -d ECC,ROW_REMAPPER (an RMA when the count grows or a "
                               "remapping failed)",
                               gpu_flag(gpu))});
  }
  if (gpu.remap_failure == "Yes") {
    out.push_back({Severity::error, "gpu-ecc", node,
                   fmt::format("{}: a memory row remapping failed (no spare rows left): memory known to be bad stays in "
                               "use",
                               label),
                   "have the GPU replaced (RMA); until then leave this node out of jobs"});
  }
  if (gpu.remap_pending == "Yes") {
    out.push_back({Severity::warning, "gpu-ecc", node,
                   fmt::format("{}: a memory row waits for a GPU reset to be remapped ({} row(s) remapped after "
                               "uncorrectable errors so far); until the reset the bad row stays in use",
                               label, std::max<int64_t>(gpu.remapped_uncorrectable, 0)),
                   reset_fix(gpu)});
  }
  if (gpu.retired_pending == "Yes") {
    out.push_back({Severity::warning, "gpu-ecc", node,
                   fmt::format("{}: a memory page waits for a GPU reset to be retired; until then the bad page stays "
                               "in use",
                               label),
                   reset_fix(gpu)});
  }
  if (gpu.retired_dbe > 0 && gpu.ecc_volatile_uncorrected <= 0 && gpu.ecc_aggregate_uncorrected <= 0) {
    out.push_back({Severity::warning, "gpu-ecc", node,
                   fmt::format("{}: {} memory page(s) retired after double-bit ECC errors", label, gpu.retired_dbe),
                   fmt::format("watch it: nvidia-smi -q {} -d PAGE_RETIREMENT (an RMA when the count keeps growing)",
                               gpu_flag(gpu))});
  }
}

}  // namespace

void check_memory(const GpuInput& in, Findings& out) {
  size_t before = out.size(), gpus = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    for (const auto& gpu : in.gpu[i].gpus) {
      ++gpus;
      check_gpu(in.names[i], gpu, out);
    }
  }
  if (out.size() == before && gpus > 0) {
    out.push_back({Severity::ok, "gpu-ecc", "",
                   "no uncorrectable ECC error (since the driver loaded or ever), no pending or failed row remap and "
                   "no retired page on any GPU",
                   ""});
  }
}

}  // namespace muster::doctor::gpu_detail
