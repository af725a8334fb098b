#include "telemetry/proc_stats.h"

#include <charconv>
#include <vector>

#include "util/text.h"

namespace muster::telemetry {
namespace {

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

template <typename T>
std::optional<T> number(std::string_view text) {
  T value{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

uint64_t u64_or_zero(std::string_view text) { return number<uint64_t>(text).value_or(0); }

// "Key:   1234 kB" lines: the number after `key`.
std::optional<uint64_t> keyed_number(std::string_view text, std::string_view key) {
  for (auto line : split_lines(text)) {
    if (!line.starts_with(key)) continue;
    auto rest = words(line.substr(key.size()));
    if (!rest.empty()) return number<uint64_t>(rest[0]);
  }
  return std::nullopt;
}

std::optional<uint32_t> to_permille(double cores) {
  if (cores < 0) return std::nullopt;
  return static_cast<uint32_t>(cores * 1000 + 0.5);
}

uint32_t parse_ipv4(std::string_view text, bool& ok) {
  uint32_t value = 0;
  int parts = 0;
  ok = false;
  while (!text.empty()) {
    size_t dot = text.find('.');
    auto part = number<uint32_t>(text.substr(0, dot));
    if (!part || *part > 255) return 0;
    value = (value << 8) | *part;
    ++parts;
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  ok = parts == 4;
  return value;
}

uint32_t hex_le_ipv4(std::string_view text, bool& ok) {  // /proc/net/route prints addresses as little-endian hex
  uint32_t raw = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), raw, 16);
  ok = error == std::errc() && end == text.data() + text.size();
  return ((raw & 0xFF) << 24) | ((raw & 0xFF00) << 8) | ((raw >> 8) & 0xFF00) | (raw >> 24);
}

}  // namespace

std::optional<CpuTimes> parse_proc_stat(std::string_view text) {
  for (auto line : split_lines(text)) {
    auto w = words(line);
    if (w.empty() || w[0] != "cpu") continue;
    if (w.size() < 5) return std::nullopt;
    CpuTimes t;
    uint64_t* fields[] = {&t.user, &t.nice, &t.system, &t.idle, &t.iowait, &t.irq, &t.softirq, &t.steal};
    for (size_t i = 0; i < 8 && i + 1 < w.size(); ++i) *fields[i] = u64_or_zero(w[i + 1]);
    return t;
  }
  return std::nullopt;
}

std::optional<MemInfo> parse_meminfo(std::string_view text) {
  auto total = keyed_number(text, "MemTotal:");
  if (!total) return std::nullopt;
  MemInfo info;
  info.total_kib = *total;
  info.available_kib = keyed_number(text, "MemAvailable:").value_or(keyed_number(text, "MemFree:").value_or(0));
  info.swap_total_kib = keyed_number(text, "SwapTotal:").value_or(0);
  info.swap_free_kib = keyed_number(text, "SwapFree:").value_or(0);
  return info;
}

SwapCounts parse_vmstat_swap(std::string_view text) {
  return SwapCounts{keyed_number(text, "pswpin ").value_or(0), keyed_number(text, "pswpout ").value_or(0)};
}

std::optional<double> parse_loadavg(std::string_view text) {
  auto w = words(trim(text));
  if (w.empty()) return std::nullopt;
  std::string first(w[0]);
  char* end = nullptr;
  double value = std::strtod(first.c_str(), &end);
  if (end == first.c_str()) return std::nullopt;
  return value;
}

std::optional<NetCounts> parse_net_dev(std::string_view text, std::string_view interface) {
  for (auto line : split_lines(text)) {
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || trim(line.substr(0, colon)) != interface) continue;
    auto w = words(line.substr(colon + 1));
    if (w.size() < 9) return std::nullopt;
    return NetCounts{u64_or_zero(w[0]), u64_or_zero(w[8])};
  }
  return std::nullopt;
}

DiskCounts parse_diskstats(std::string_view text, const std::set<std::string>& disks) {
  DiskCounts counts;
  for (auto line : split_lines(text)) {
    auto w = words(line);
    // major minor name reads merged sectors ms writes merged sectors ms in-flight io_ms ...
    if (w.size() < 13 || !disks.contains(std::string(w[2]))) continue;
    counts.read_sectors += u64_or_zero(w[5]);
    counts.write_sectors += u64_or_zero(w[9]);
    counts.io_ms[std::string(w[2])] = u64_or_zero(w[12]);
  }
  return counts;
}

std::optional<ProcessStat> parse_pid_stat(std::string_view text) {
  size_t close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  auto w = words(trim(text.substr(close + 1)));
  // After the name: state(0) ppid(1) pgrp(2) session(3) tty(4) tpgid(5) flags(6) minflt(7) cminflt(8) majflt(9)
  // cmajflt(10) utime(11) stime(12) ... rss(21)
  if (w.size() < 22) return std::nullopt;
  ProcessStat stat;
  stat.ppid = number<int>(w[1]).value_or(0);
  stat.pgrp = number<int>(w[2]).value_or(0);
  stat.cpu_ticks = u64_or_zero(w[11]) + u64_or_zero(w[12]);
  stat.rss_pages = u64_or_zero(w[21]);
  return stat;
}

std::optional<uint64_t> parse_schedstat_wait(std::string_view text) {
  auto w = words(trim(text));
  if (w.size() < 2) return std::nullopt;
  return number<uint64_t>(w[1]);
}

std::optional<CgroupPath> parse_cpu_cgroup(std::string_view text) {
  std::optional<CgroupPath> v2;
  for (auto line : split_lines(text)) {
    size_t a = line.find(':');
    size_t b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    std::string_view controllers = line.substr(a + 1, b - a - 1);
    std::string_view path = line.substr(b + 1);
    if (line.substr(0, a) == "0" && controllers.empty()) {
      v2 = CgroupPath{std::string(path), true};
      continue;
    }
    std::string_view rest = controllers;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      if (rest.substr(0, comma) == "cpu") return CgroupPath{std::string(path), false};
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return v2;
}

std::optional<uint64_t> parse_cpu_stat_throttled_us(std::string_view text) {
  if (auto usec = keyed_number(text, "throttled_usec ")) return *usec;
  if (auto ns = keyed_number(text, "throttled_time ")) return *ns / 1000;
  return std::nullopt;
}

std::optional<uint32_t> parse_cpu_quota_v1(std::string_view quota, std::string_view period) {
  auto q = number<int64_t>(trim(quota));
  auto p = number<int64_t>(trim(period));
  if (!q || !p || *q <= 0 || *p <= 0) return std::nullopt;
  return to_permille(static_cast<double>(*q) / static_cast<double>(*p));
}

std::optional<uint32_t> parse_cpu_max(std::string_view text) {
  auto w = words(trim(text));
  if (w.size() < 2 || w[0] == "max") return std::nullopt;
  return parse_cpu_quota_v1(w[0], w[1]);
}

std::string route_interface(std::string_view proc_net_route, std::string_view address) {
  bool ok = false;
  uint32_t target = parse_ipv4(address, ok);
  if (!ok) return "";
  std::string best;
  int best_bits = -1;
  for (auto line : split_lines(proc_net_route)) {
    auto w = words(line);  // Iface Destination Gateway Flags RefCnt Use Metric Mask ...
    if (w.size() < 8 || w[0] == "Iface") continue;
    bool dest_ok = false, mask_ok = false;
    uint32_t dest = hex_le_ipv4(w[1], dest_ok);
    uint32_t mask = hex_le_ipv4(w[7], mask_ok);
    if (!dest_ok || !mask_ok || (target & mask) != dest) continue;
    int bits = __builtin_popcount(mask);
    if (bits > best_bits) {
      best_bits = bits;
      best = std::string(w[0]);
    }
  }
  return best;
}

std::optional<XidEvent> parse_xid_line(std::string_view line) {
  size_t at = line.find("NVRM: Xid (");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + 11);
  size_t close = rest.find("):");
  if (close == std::string_view::npos) return std::nullopt;
  XidEvent event;
  event.pci = std::string(rest.substr(0, close));
  if (event.pci.starts_with("PCI:")) event.pci.erase(0, 4);
  auto after = trim(rest.substr(close + 2));
  size_t comma = after.find(',');
  auto code = number<uint32_t>(trim(after.substr(0, comma)));
  if (!code) return std::nullopt;
  event.code = *code;
  event.text = std::string(line.substr(at + 6));
  return event;
}

}  // namespace muster::telemetry
