#include "gpu/kernel_events.h"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "gpu/xid.h"
#include "util/text.h"

namespace muster::gpu {
namespace {

std::optional<int> to_int(std::string_view text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The text up to the next ", " (or the end), and `rest` moved past it.
std::string_view take_field(std::string_view& rest) {
  size_t comma = rest.find(',');
  std::string_view field = trim(rest.substr(0, comma));
  rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  return field;
}

// "pid=1234, name=python3, <detail>" (either may be missing, pid may be '<unknown>').
void parse_process(std::string_view rest, GpuKernelEvent& event) {
  rest = trim(rest);
  for (int field = 0; field < 2; ++field) {
    if (rest.starts_with("pid=")) {
      std::string_view save = rest;
      std::string_view value = take_field(rest).substr(4);
      if (auto pid = to_int(value)) {
        event.pid = *pid;
      } else if (value.find("unknown") == std::string_view::npos) {
        rest = save;  // not a pid field after all: it is the detail
        break;
      }
    } else if (rest.starts_with("name=")) {
      std::string_view value = take_field(rest).substr(5);
      if (value.find("unknown") == std::string_view::npos) event.process = std::string(value);
    }
    rest = trim(rest);
  }
  event.detail = std::string(trim(rest));
}

}  // namespace

std::string normalize_pci(std::string_view text) {
  std::string lower;
  for (char c : trim(text)) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  std::string_view id = lower;
  if (id.starts_with("pci:")) id.remove_prefix(4);
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t colon = id.find(':', start);
    parts.push_back(id.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return lower;
  std::string_view domain = parts.size() == 3 ? parts[0] : std::string_view("0000");
  std::string_view bus = parts[parts.size() - 2];
  std::string_view device = parts.back().substr(0, parts.back().find('.'));
  if (domain.size() > 4) domain.remove_prefix(domain.size() - 4);
  auto hex = [](std::string_view part) {
    return !part.empty() && part.find_first_not_of("0123456789abcdef") == std::string_view::npos;
  };
  if (!hex(domain) || !hex(bus) || !hex(device)) return lower;
  return fmt::format("{:0>4}:{:0>2}:{:0>2}", domain, bus, device);
}

std::optional<GpuKernelEvent> parse_gpu_kernel_line(std::string_view message) {
  GpuKernelEvent event;
  if (size_t at = message.find("NVRM: Xid ("); at != std::string_view::npos) {
    std::string_view rest = message.substr(at + 11);
    size_t close = rest.find("):");
    if (close == std::string_view::npos) return std::nullopt;
    event.pci = normalize_pci(rest.substr(0, close));
    rest.remove_prefix(close + 2);
    auto code = to_int(take_field(rest));
    if (!code || *code <= 0) return std::nullopt;
    event.xid = *code;
    parse_process(rest, event);
    return event;
  }
  // "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus." (logged without a code by some drivers)
  if (size_t at = message.find("NVRM: GPU "); at != std::string_view::npos &&
                                              message.find("fallen off the bus") != std::string_view::npos) {
    std::string_view rest = message.substr(at + 10);
    size_t end = rest.find(": ");
    if (end == std::string_view::npos) return std::nullopt;
    event.pci = normalize_pci(rest.substr(0, end));
    event.xid = 79;
    event.detail = std::string(trim(rest.substr(end + 2)));
    return event;
  }
  return std::nullopt;
}

std::optional<GpuUuidLine> parse_gpu_uuid_line(std::string_view message) {
  size_t at = message.find("NVRM: GPU at ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = message.substr(at + 13);
  size_t uuid = rest.find(": GPU-");
  if (uuid == std::string_view::npos) return std::nullopt;
  return GpuUuidLine{normalize_pci(rest.substr(0, uuid)), std::string(trim(rest.substr(uuid + 2)))};
}

std::string describe_gpu(const std::vector<GpuIdentity>& gpus, const std::string& pci) {
  for (const auto& gpu : gpus) {
    if (gpu.pci != pci || gpu.index < 0) continue;
    return gpu.uuid.empty() ? fmt::format("GPU {} ({})", gpu.index, pci)
                            : fmt::format("GPU {} ({}, {})", gpu.index, pci, gpu.uuid);
  }
  return pci.empty() ? std::string("a GPU") : "GPU at " + pci;
}

std::string describe_event(const std::string& node, const std::vector<GpuIdentity>& gpus,
                           const GpuKernelEvent& event) {
  XidInfo info = xid_info(event.xid);
  std::string who;
  if (event.pid >= 0) who = fmt::format("; pid {}{}", event.pid, event.process.empty() ? "" : " " + event.process);
  return fmt::format("{}: {} XID {} ({}{}): {}", node, describe_gpu(gpus, event.pci), event.xid, info.name, who,
                     info.meaning);
}

}  // namespace muster::gpu
