#include "doctor/node/nvidia_smi.h"

#include <charconv>
#include <cstdint>

#include "util/text.h"

namespace muster::doctor {
namespace {

bool not_available(std::string_view field) {
  return field.empty() || field == "[N/A]" || field == "N/A" || field == "[Not Supported]";
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (;;) {
    size_t comma = line.find(',');
    fields.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

template <typename Number>
Number to_number(std::string_view field, Number fallback) {
  Number value{};
  auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size()) return fallback;
  return value;
}

std::string text_or_empty(std::string_view field) { return not_available(field) ? std::string() : std::string(field); }

// The dotted version number that follows `label` in `text` ("12.4" after "CUDA Version:").
std::string version_after(std::string_view text, std::string_view label) {
  size_t at = text.find(label);
  if (at == std::string_view::npos) return {};
  std::string_view rest = text.substr(at + label.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  size_t length = 0;
  while (length < rest.size() && ((rest[length] >= '0' && rest[length] <= '9') || rest[length] == '.')) ++length;
  return std::string(rest.substr(0, length));
}

}  // namespace

std::vector<Gpu> parse_gpu_query(std::string_view text) {
  std::vector<Gpu> gpus;
  for (auto raw : split_lines(text)) {
    std::string_view line = trim(raw);
    auto fields = split_fields(line);
    if (fields.size() < 5) continue;
    // index, name (may itself contain commas), memory.total, uuid, driver_version
    size_t last = fields.size() - 1;
    Gpu gpu;
    gpu.index = to_number<int>(fields[0], static_cast<int>(gpus.size()));
    std::string name(fields[1]);
    for (size_t i = 2; i + 3 <= last; ++i) name += "," + std::string(fields[i]);
    gpu.name = text_or_empty(name);
    gpu.memory_mib = to_number<int64_t>(fields[last - 2], 0);
    gpu.uuid = text_or_empty(fields[last - 1]);
    gpu.driver = text_or_empty(fields[last]);
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

std::string parse_cuda_version(std::string_view header) { return version_after(header, "CUDA Version:"); }

std::string parse_nvcc_release(std::string_view text) { return version_after(text, "release "); }

}  // namespace muster::doctor
