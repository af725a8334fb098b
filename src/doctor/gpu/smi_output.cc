#include "doctor/gpu/smi_output.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "gpu/kernel_events.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

constexpr std::string_view kThrottle = "clocks_throttle_reasons.active";
constexpr std::string_view kClockEvents = "clocks_event_reasons.active";  // the name since driver 535

bool not_available(std::string_view value) {
  return value.empty() || value == "[N/A]" || value == "N/A" || value == "[Not Supported]" ||
         value == "Not Supported" || value == "[Unknown Error]";
}

std::vector<std::string_view> split_values(std::string_view line) {
  std::vector<std::string_view> values;
  for (;;) {
    size_t comma = line.find(',');
    values.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return values;
    line.remove_prefix(comma + 1);
  }
}

template <typename Number>
Number number(std::string_view text, Number fallback) {
  text = trim(text);
  if (not_available(text)) return fallback;
  Number value{};
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  if constexpr (std::is_integral_v<Number>) {
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (error != std::errc() || end != text.data() + text.size()) return fallback;
  } else {
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc()) return fallback;
    (void)end;
  }
  return value;
}

std::string text(std::string_view value) { return not_available(value) ? std::string() : std::string(value); }

// "Yes"/"No" whichever way a driver spells it (Yes, No, 1, 0, True, False); "" unknown.
std::string yes_no(std::string_view value) {
  std::string lower;
  for (char c : trim(value)) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "yes" || lower == "1" || lower == "true") return "Yes";
  if (lower == "no" || lower == "0" || lower == "false") return "No";
  return {};
}

void set_field(GpuHealth& gpu, std::string_view field, std::string_view value) {
  if (field == "index") gpu.index = number<int>(value, -1);
  else if (field == "uuid") gpu.uuid = text(value);
  else if (field == "name") gpu.name = text(value);
  else if (field == "pci.bus_id") gpu.pci = not_available(value) ? std::string() : gpu::normalize_pci(value);
  else if (field == "persistence_mode") gpu.persistence = text(value);
  else if (field == "mig.mode.current") gpu.mig_current = text(value);
  else if (field == "mig.mode.pending") gpu.mig_pending = text(value);
  else if (field == "ecc.errors.uncorrected.volatile.total") gpu.ecc_volatile_uncorrected = number<int64_t>(value, -1);
  else if (field == "ecc.errors.uncorrected.aggregate.total") gpu.ecc_aggregate_uncorrected = number<int64_t>(value, -1);
  else if (field == "retired_pages.pending") gpu.retired_pending = yes_no(value);
  else if (field == "retired_pages.double_bit.count") gpu.retired_dbe = number<int64_t>(value, -1);
  else if (field == "pcie.link.gen.current") gpu.pcie_gen = number<int>(value, -1);
  else if (field == "pcie.link.gen.max") gpu.pcie_gen_max = number<int>(value, -1);
  else if (field == "pcie.link.width.current") gpu.pcie_width = number<int>(value, -1);
  else if (field == "pcie.link.width.max") gpu.pcie_width_max = number<int>(value, -1);
  else if (field == kThrottle || field == kClockEvents) gpu.throttle_reasons = number<int64_t>(value, -1);
  else if (field == "pstate") gpu.pstate = text(value);
  else if (field == "utilization.gpu") gpu.utilization = number<int>(value, -1);
  else if (field == "temperature.gpu") gpu.temperature = number<int>(value, -1);
  else if (field == "memory.used") gpu.memory_used_mib = number<int64_t>(value, -1);
  else if (field == "memory.total") gpu.memory_total_mib = number<int64_t>(value, -1);
  else if (field == "fabric.state") gpu.fabric_state = text(value);
  else if (field == "fabric.status") gpu.fabric_status = text(value);
}

GpuHealth* gpu_with_index(std::vector<GpuHealth>& gpus, int index) {
  for (auto& gpu : gpus) {
    if (gpu.index == index) return &gpu;
  }
  return nullptr;
}

NvLinkState& link_of(GpuHealth& gpu, int link) {
  for (auto& state : gpu.nvlinks) {
    if (state.link == link) return state;
  }
  gpu.nvlinks.push_back(NvLinkState{link});
  std::sort(gpu.nvlinks.begin(), gpu.nvlinks.end(),
            [](const NvLinkState& a, const NvLinkState& b) { return a.link < b.link; });
  for (auto& state : gpu.nvlinks) {
    if (state.link == link) return state;
  }
  return gpu.nvlinks.back();  // not reached
}

// Walks nvidia-smi nvlink's output: `on_link(gpu, link number, what follows "Link n:")` for every link line under a
// "GPU n:" line naming a GPU of `gpus`.
template <typename OnLink>
void walk_nvlink(std::string_view output, std::vector<GpuHealth>& gpus, OnLink on_link) {
  GpuHealth* current = nullptr;
  for (auto raw : split_lines(output)) {
    std::string_view line = trim(raw);
    if (line.starts_with("GPU ")) {
      size_t colon = line.find(':');
      current = colon == std::string_view::npos ? nullptr : gpu_with_index(gpus, number<int>(line.substr(4, colon - 4), -1));
      continue;
    }
    if (!current || !line.starts_with("Link ")) continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    int link = number<int>(line.substr(5, colon - 5), -1);
    if (link < 0) continue;
    on_link(*current, link, trim(line.substr(colon + 1)));
  }
}

}  // namespace

std::vector<std::string> health_query_fields() {
  return {"index", "pci.bus_id", "uuid", "persistence_mode", "mig.mode.current", "mig.mode.pending",
          "ecc.errors.uncorrected.volatile.total", "ecc.errors.uncorrected.aggregate.total", "retired_pages.pending",
          "retired_pages.double_bit.count", "pcie.link.gen.current", "pcie.link.gen.max", "pcie.link.width.current",
          "pcie.link.width.max", std::string(kThrottle), "pstate", "utilization.gpu", "temperature.gpu", "memory.used",
          "memory.total", "fabric.state", "fabric.status", "name"};
}

std::optional<std::string> refused_field(std::string_view output) {
  size_t at = output.find("is not a valid field to query");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view before = output.substr(0, at);
  size_t close = before.rfind('"');
  if (close == std::string_view::npos) return std::nullopt;
  size_t open = before.rfind('"', close - (close > 0 ? 1 : 0));
  if (open == std::string_view::npos || open == close) return std::nullopt;
  return std::string(before.substr(open + 1, close - open - 1));
}

bool next_query_fields(std::vector<std::string>& fields, const std::string& refused) {
  auto found = std::find(fields.begin(), fields.end(), refused);
  if (found == fields.end()) return false;
  // The old name first, the new one after it; a driver that knows neither loses the field.
  if (refused == kThrottle) *found = std::string(kClockEvents);
  else fields.erase(found);
  return true;
}

std::vector<GpuHealth> parse_health_query(std::string_view text_in, const std::vector<std::string>& fields) {
  std::vector<GpuHealth> gpus;
  if (fields.empty()) return gpus;
  for (auto raw : split_lines(text_in)) {
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    auto values = split_values(line);
    if (values.size() < fields.size()) continue;  // an error line, not a GPU
    GpuHealth gpu;
    for (size_t i = 0; i + 1 < fields.size(); ++i) set_field(gpu, fields[i], values[i]);
    // The last field takes the rest of the line (a name with commas).
    size_t last = fields.size() - 1;
    std::string tail(values[last]);
    for (size_t i = last + 1; i < values.size(); ++i) tail += ", " + std::string(values[i]);
    set_field(gpu, fields[last], tail);
    if (gpu.index < 0) gpu.index = static_cast<int>(gpus.size());
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

std::vector<GpuProcess> parse_compute_apps(std::string_view text_in) {
  std::vector<GpuProcess> processes;
  for (auto raw : split_lines(text_in)) {
    auto values = split_values(trim(raw));
    if (values.size() < 4) continue;
    GpuProcess process;
    process.gpu_uuid = text(values[0]);
    process.pid = number<int>(values[1], -1);
    process.used_mib = number<int64_t>(values[2], -1);
    std::string name(values[3]);
    for (size_t i = 4; i < values.size(); ++i) name += ", " + std::string(values[i]);
    process.name = text(name);
    if (process.pid < 0) continue;  // "No running processes found" and other prose
    processes.push_back(std::move(process));
  }
  return processes;
}

void merge_remapped_rows(std::string_view text_in, std::vector<GpuHealth>& gpus) {
  for (auto raw : split_lines(text_in)) {
    auto values = split_values(trim(raw));
    if (values.size() < 4) continue;
    for (auto& gpu : gpus) {
      if (gpu.uuid.empty() || gpu.uuid != values[0]) continue;
      gpu.remapped_uncorrectable = number<int64_t>(values[1], -1);
      gpu.remap_pending = yes_no(values[2]);
      gpu.remap_failure = yes_no(values[3]);
    }
  }
}

void merge_nvlink_status(std::string_view text_in, std::vector<GpuHealth>& gpus) {
  walk_nvlink(text_in, gpus, [](GpuHealth& gpu, int link, std::string_view rest) {
    NvLinkState& state = link_of(gpu, link);
    if (rest.find("inactive") != std::string_view::npos || rest.find("inActive") != std::string_view::npos) {
      state.active = false;
      return;
    }
    double speed = number<double>(rest.substr(0, rest.find(' ')), -1.0);
    state.active = speed > 0;
    state.gb_per_s = speed;
  });
}

void merge_nvlink_errors(std::string_view text_in, std::vector<GpuHealth>& gpus) {
  walk_nvlink(text_in, gpus, [](GpuHealth& gpu, int link, std::string_view rest) {
    size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos) return;
    int64_t count = number<int64_t>(rest.substr(colon + 1), -1);
    if (count < 0) return;
    std::string label;
    for (char c : rest.substr(0, colon)) label.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    NvLinkState& state = link_of(gpu, link);
    auto add = [&](int64_t& counter) { counter = (counter < 0 ? 0 : counter) + count; };
    if (label.find("replay") != std::string::npos) add(state.replay);
    else if (label.find("recovery") != std::string::npos) add(state.recovery);
    else if (label.find("crc") != std::string::npos) add(state.crc);
  });
}

}  // namespace muster::doctor
