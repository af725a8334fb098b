#include "gpu/proc_driver.h"

#include <charconv>
#include <string>

#include "util/text.h"

namespace muster::gpu {

std::optional<GpuIdentity> parse_proc_gpu_information(std::string_view text) {
  GpuIdentity gpu;
  bool located = false;
  for (auto line : split_lines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (key == "Model") {
      gpu.model = std::string(value);
    } else if (key == "GPU UUID") {
      gpu.uuid = std::string(value);
    } else if (key == "Bus Location") {
      gpu.pci = normalize_pci(value);
      located = true;
    } else if (key == "Device Minor") {
      int minor = -1;
      auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), minor);
      if (error == std::errc() && end == value.data() + value.size()) gpu.index = minor;
    }
  }
  if (!located) return std::nullopt;
  return gpu;
}

}  // namespace muster::gpu
