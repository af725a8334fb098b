#include "posix/proc.h"

#include <signal.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace muster::posix {
namespace {

std::string read_small(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses): field 3 first.
std::vector<std::string> stat_fields(const std::string& stat) {
  std::vector<std::string> fields;
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(stat.substr(close + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

std::optional<uint64_t> stat_field(int pid, size_t field) {
  auto fields = stat_fields(read_small(fmt::format("/proc/{}/stat", pid)));
  if (fields.size() + 2 < field) return std::nullopt;
  try {
    return std::stoull(fields[field - 3]);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<uint64_t> process_start_time(int pid) { return stat_field(pid, 22); }

bool same_process(int pid, uint64_t start_time) {
  auto now = process_start_time(pid);
  return now && *now == start_time;
}

bool process_alive(int pid, uint64_t start_time) {
  auto fields = stat_fields(read_small(fmt::format("/proc/{}/stat", pid)));
  if (fields.size() < 20 || fields[0] == "Z" || fields[0] == "X") return false;
  try {
    return std::stoull(fields[22 - 3]) == start_time;
  } catch (...) {
    return false;
  }
}

std::optional<uint32_t> process_uid(int pid) {
  std::istringstream status(read_small(fmt::format("/proc/{}/status", pid)));
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("Uid:")) continue;
    try {
      return static_cast<uint32_t>(std::stoul(line.substr(4)));
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string process_name(int pid) {
  std::string name = read_small(fmt::format("/proc/{}/comm", pid));
  if (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}

std::string boot_id() {
  std::string id = read_small("/proc/sys/kernel/random/boot_id");
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

bool catches_signal(int pid, int signal) {
  std::istringstream status(read_small(fmt::format("/proc/{}/status", pid)));
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("SigCgt:")) continue;
    try {
      uint64_t mask = std::stoull(line.substr(7), nullptr, 16);
      return signal >= 1 && signal <= 64 && ((mask >> (signal - 1)) & 1) != 0;
    } catch (...) {
      return false;
    }
  }
  return false;
}

std::optional<uint64_t> cpu_ticks(int pid) {
  auto user = stat_field(pid, 14);
  auto system = stat_field(pid, 15);
  if (!user || !system) return std::nullopt;
  return *user + *system;
}

std::string kernel_wait_summary(int pid) {
  std::string text;
  std::error_code error;
  std::vector<std::string> tids;
  for (const auto& entry : std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid), error)) {
    tids.push_back(entry.path().filename().string());
  }
  std::sort(tids.begin(), tids.end(), [](const std::string& a, const std::string& b) { return std::stoi(a) < std::stoi(b); });
  for (const auto& tid : tids) {
    std::string base = fmt::format("/proc/{}/task/{}/", pid, tid);
    std::string stat = read_small(base + "stat");
    auto fields = stat_fields(stat);
    size_t open = stat.find('('), close = stat.rfind(')');
    std::string name = open != std::string::npos && close > open ? stat.substr(open + 1, close - open - 1) : "?";
    std::string wchan = read_small(base + "wchan");
    text += fmt::format("TID {} ({}): state {} in {}\n", tid, name, fields.empty() ? "?" : fields[0],
                        wchan.empty() || wchan == "0" ? "(running or unknown)" : wchan);
  }
  return text;
}

int first_realtime_signal() { return SIGRTMIN; }

std::optional<uint64_t> oom_kill_count() {
  std::istringstream vmstat(read_small("/proc/vmstat"));
  for (std::string name, value; vmstat >> name >> value;) {
    if (name != "oom_kill") continue;
    try {
      return std::stoull(value);
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Result<void> signal_process(int pid, int sig) {
  if (pid <= 1) return make_error(ErrorKind::internal, "refusing to signal pid {}", pid);
  if (::kill(pid, sig) != 0) return make_error(ErrorKind::io, "cannot signal pid {}: {}", pid, std::strerror(errno));
  return {};
}

}  // namespace muster::posix
