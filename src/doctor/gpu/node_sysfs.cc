#include "doctor/gpu/node_sysfs.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "posix/file.h"
#include "util/text.h"

namespace muster::doctor {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxProcesses = 100'000;  // a bound on the /proc walk

std::string read_trimmed(const fs::path& path) {
  auto text = posix::read_text_file(path.string());
  return text ? std::string(trim(*text)) : std::string();
}

// The entries of a directory, sorted by name; none when it is missing.
std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string sysfs_state_name(std::string_view text) {
  text = trim(text);
  size_t colon = text.find(':');
  return std::string(trim(colon == std::string_view::npos ? text : text.substr(colon + 1)));
}

double parse_ib_rate(std::string_view text) {
  text = trim(text);
  double value = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return -1;
  std::string_view unit = trim(std::string_view(end, static_cast<size_t>(text.data() + text.size() - end)));
  return unit.starts_with("Gb/s") ? value : -1;
}

std::vector<IbPort> read_ib_ports(const std::string& root) {
  std::vector<IbPort> ports;
  for (const auto& device : entries(fs::path(root + "/sys/class/infiniband"))) {
    for (const auto& port_dir : entries(device / "ports")) {
      IbPort port;
      port.device = device.filename().string();
      std::string number = port_dir.filename().string();
      auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), port.port);
      if (error != std::errc()) continue;
      port.state = sysfs_state_name(read_trimmed(port_dir / "state"));
      port.phys_state = sysfs_state_name(read_trimmed(port_dir / "phys_state"));
      port.rate = read_trimmed(port_dir / "rate");
      port.rate_gbps = parse_ib_rate(port.rate);
      port.link_layer = read_trimmed(port_dir / "link_layer");
      ports.push_back(std::move(port));
    }
  }
  return ports;
}

std::string loaded_peermem_module(const std::string& root) {
  for (const char* module : {"nvidia_peermem", "nv_peer_mem"}) {
    if (posix::path_exists(root + "/sys/module/" + module)) return module;
  }
  return {};
}

int count_nvswitches(const std::string& root) {
  return static_cast<int>(entries(fs::path(root + "/proc/driver/nvidia-nvswitch/devices")).size());
}

bool process_named(const std::string& root, std::string_view comm) {
  int seen = 0;
  std::error_code error;
  for (fs::directory_iterator it(fs::path(root + "/proc"), error), end; !error && it != end && seen < kMaxProcesses;
       it.increment(error), ++seen) {
    std::string name = it->path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    if (read_trimmed(it->path() / "comm") == comm) return true;
  }
  return false;
}

}  // namespace muster::doctor
