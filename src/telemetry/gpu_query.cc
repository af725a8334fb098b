#include "telemetry/gpu_query.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/core.h>

#include "util/text.h"

namespace muster::telemetry {
namespace {

std::vector<std::string_view> csv_fields(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    size_t comma = line.find(',');
    out.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return out;
}

bool unmeasured(std::string_view field) {
  return field.empty() || field.find("N/A") != std::string_view::npos ||
         field.find("Not Supported") != std::string_view::npos || field.find("Unknown") != std::string_view::npos;
}

std::optional<double> decimal(std::string_view field) {
  if (unmeasured(field)) return std::nullopt;
  std::string text(field);
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

uint32_t figure(std::string_view field, double scale = 1) {
  auto value = decimal(field);
  if (!value) return kNone;
  return static_cast<uint32_t>(std::min(*value * scale + 0.5, 4.0e9));
}

}  // namespace

std::vector<std::string> gpu_query_argv(int interval_ms) {
  return {"nvidia-smi", fmt::format("--query-gpu={}", kGpuQueryFields), "--format=csv,noheader,nounits",
          fmt::format("--loop-ms={}", interval_ms)};
}

std::vector<std::string> compute_apps_argv() {
  return {"nvidia-smi", "--query-compute-apps=gpu_uuid,pid,used_memory", "--format=csv,noheader,nounits"};
}

std::optional<GpuReading> parse_gpu_line(std::string_view line) {
  auto f = csv_fields(trim(line));
  if (f.size() != 13) return std::nullopt;
  uint32_t index = 0;
  auto [end, error] = std::from_chars(f[0].data(), f[0].data() + f[0].size(), index);
  if (error != std::errc() || end != f[0].data() + f[0].size()) return std::nullopt;
  GpuReading reading;
  GpuSample& s = reading.sample;
  s.index = index;
  reading.uuid = std::string(f[1]);
  reading.pci = std::string(f[2]);
  s.util_pct = figure(f[3]);
  s.mem_used_mib = figure(f[4]);
  s.mem_total_mib = figure(f[5]);
  s.power_dw = figure(f[6], 10);
  s.power_limit_dw = figure(f[7], 10);
  s.temp_c = figure(f[8]);
  s.sm_mhz = figure(f[9]);
  s.sm_max_mhz = figure(f[10]);
  if (!unmeasured(f[11])) {
    std::string_view hex = f[11];
    if (hex.starts_with("0x") || hex.starts_with("0X")) hex.remove_prefix(2);
    uint64_t bits = 0;
    std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
    s.throttle = static_cast<uint32_t>(bits & 0xFFFFFFFFu);
  }
  s.ecc_uncorrected = figure(f[12]);
  return reading;
}

std::vector<ComputeApp> parse_compute_apps(std::string_view text) {
  std::vector<ComputeApp> apps;
  for (auto line : split_lines(text)) {
    auto f = csv_fields(trim(line));
    if (f.size() != 3 || !f[0].starts_with("GPU-")) continue;
    ComputeApp app;
    app.uuid = std::string(f[0]);
    auto [end, error] = std::from_chars(f[1].data(), f[1].data() + f[1].size(), app.pid);
    if (error != std::errc() || app.pid <= 0) continue;
    uint32_t used = figure(f[2]);
    app.used_mib = used == kNone ? 0 : used;
    apps.push_back(std::move(app));
  }
  return apps;
}

std::string short_pci(std::string_view id) {
  // "00000000:3B:00.0" -> "0000:3b:00": the domain's last four digits, bus, device; lower case.
  std::string text(id);
  if (size_t dot = text.rfind('.'); dot != std::string::npos) text.erase(dot);
  size_t colon = text.find(':');
  if (colon != std::string::npos && colon > 4) text.erase(0, colon - 4);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace muster::telemetry
