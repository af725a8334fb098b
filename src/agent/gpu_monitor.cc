#include "agent/gpu_monitor.h"

#include <csignal>
#include <cstdlib>

#include <fmt/core.h>

#include "posix/environment.h"
#include "posix/exec.h"
#include "posix/file.h"
#include "posix/kernel_log.h"
#include "posix/pipe.h"
#include "telemetry/proc_stats.h"
#include "util/text.h"

namespace muster::agent {
namespace {

constexpr int64_t kAppsEveryMs = 10'000;
constexpr int64_t kXidsEveryMs = 10'000;
constexpr int64_t kRestartAfterMs = 30'000;
constexpr size_t kMaxBuffer = 1 << 20;

}  // namespace

bool node_has_nvidia_gpus() {
  const char* said = std::getenv("MUSTER_NODE_GPUS");
  if (said && (std::string_view(said) == "1" || std::string_view(said) == "0")) return said[0] == '1';
  return posix::path_exists("/dev/nvidiactl");
}

GpuMonitor::~GpuMonitor() {
  stop(query_);
  stop(apps_);
}

void GpuMonitor::stop(std::unique_ptr<Child>& child) {
  if (!child) return;
  child->watch.reset();
  (void)child->process.signal(SIGKILL);
  (void)child->process.try_wait();
  child.reset();
}

std::unique_ptr<GpuMonitor::Child> GpuMonitor::launch(const std::vector<std::string>& argv) {
  auto pipe = posix::make_pipe();
  if (!pipe) {
    notes_.push_back("gpu: cannot make a pipe for nvidia-smi: " + pipe.error().message);
    return nullptr;
  }
  posix::SpawnOptions spawn;
  spawn.argv = argv;
  spawn.stdout_fd = pipe->write.get();
  spawn.stderr_fd = pipe->write.get();
  spawn.parent_death_signal = SIGKILL;
  auto process = posix::spawn(spawn);
  if (!process) {
    notes_.push_back("gpu: cannot run nvidia-smi: " + process.error().message);
    return nullptr;
  }
  auto child = std::make_unique<Child>();
  child->process = std::move(*process);
  child->out = std::move(pipe->read);
  (void)posix::set_nonblocking(child->out.get());
  return child;
}

void GpuMonitor::start(int interval_ms, int64_t now_ms) {
  if (started_) return;
  started_ = true;
  interval_ms_ = interval_ms;
  start_ms_ = xid_seen_ms_ = now_ms;
  if (!node_has_nvidia_gpus()) return;
  if (!posix::find_in_path("nvidia-smi")) {
    notes_.push_back("gpu: this node has NVIDIA GPUs but no nvidia-smi on PATH: no GPU figures");
    return;
  }
  available_ = true;
  restart_at_ms_ = now_ms;
  apps_at_ms_ = now_ms + 2000;
  xids_at_ms_ = now_ms + kXidsEveryMs;
}

// Reads what the child wrote; true once it reached EOF.
bool GpuMonitor::drain(Child& child) {
  char chunk[16384];
  for (int round = 0; round < 64; ++round) {
    auto got = posix::read_some(child.out.get(), chunk);
    if (!got || got->eof) {
      child.eof = true;
      child.watch.reset();
      return true;
    }
    if (got->would_block) return false;
    if (child.buffer.size() + got->bytes <= kMaxBuffer) child.buffer.append(chunk, got->bytes);
  }
  return false;
}

void GpuMonitor::on_query_output() {
  if (!query_) return;
  drain(*query_);
  size_t end = query_->buffer.rfind('\n');
  if (end == std::string::npos) return;
  std::string lines = query_->buffer.substr(0, end + 1);
  query_->buffer.erase(0, end + 1);
  for (auto line : split_lines(lines)) {
    if (auto reading = telemetry::parse_gpu_line(line)) {
      readings_[reading->sample.index] = std::move(*reading);
    } else if (!trim(line).empty()) {
      last_error_ = std::string(trim(line));
    }
  }
}

void GpuMonitor::on_apps_output() {
  if (apps_) drain(*apps_);
}

void GpuMonitor::finish_apps(const std::set<int>& job_groups) {
  auto apps = telemetry::parse_compute_apps(apps_->buffer);
  stop(apps_);
  others_.clear();
  for (const auto& app : apps) {
    // A process this node shows and that is in none of the job's groups is another's. One it does not show (a
    // container's PID namespace) is not judged.
    auto stat_text = posix::read_text_file(fmt::format("/proc/{}/stat", app.pid));
    if (!stat_text) continue;
    auto stat = telemetry::parse_pid_stat(*stat_text);
    if (!stat || job_groups.contains(stat->pgrp)) continue;
    ++others_[app.uuid];
  }
}

void GpuMonitor::read_xids(int64_t now_ms) {
  auto lines = posix::kernel_log_lines("NVRM: Xid", xid_seen_ms_, 64);
  if (!lines) return;  // the kernel log is root's here: no XIDs, said nowhere (doctor says it)
  for (const auto& line : *lines) {
    xid_seen_ms_ = std::max(xid_seen_ms_, line.monotonic_ms + 1);
    auto xid = telemetry::parse_xid_line(line.text);
    if (!xid) continue;
    for (const auto& [index, reading] : readings_) {
      if (telemetry::short_pci(reading.pci) != xid->pci) continue;
      xids_[index] = xid->code;
      notes_.push_back(fmt::format("xid {} {}", index, xid->text));
    }
  }
  (void)now_ms;
}

void GpuMonitor::tick(int64_t now_ms, const std::set<int>& job_groups) {
  if (!available_) return;
  if (query_ && query_->eof) {
    (void)query_->process.try_wait();
    notes_.push_back(fmt::format("gpu: nvidia-smi stopped{}; trying again in {} s",
                                 last_error_.empty() ? "" : ": " + last_error_, kRestartAfterMs / 1000));
    stop(query_);
    restart_at_ms_ = now_ms + kRestartAfterMs;
  }
  if (!query_ && now_ms >= restart_at_ms_) {
    query_ = launch(telemetry::gpu_query_argv(interval_ms_));
    if (query_) {
      auto watch = loop_.watch(query_->out.get(), posix::poll_readable, [this](uint32_t) { on_query_output(); });
      if (watch) query_->watch = std::move(*watch);
    } else {
      restart_at_ms_ = now_ms + kRestartAfterMs;
    }
  }
  if (apps_ && apps_->eof) finish_apps(job_groups);
  if (!apps_ && now_ms >= apps_at_ms_) {
    apps_at_ms_ = now_ms + kAppsEveryMs;
    apps_ = launch(telemetry::compute_apps_argv());
    if (apps_) {
      auto watch = loop_.watch(apps_->out.get(), posix::poll_readable, [this](uint32_t) { on_apps_output(); });
      if (watch) apps_->watch = std::move(*watch);
    }
  }
  if (now_ms >= xids_at_ms_) {
    xids_at_ms_ = now_ms + kXidsEveryMs;
    read_xids(now_ms);
  }
}

std::vector<telemetry::GpuSample> GpuMonitor::gpus() const {
  std::vector<telemetry::GpuSample> out;
  for (const auto& [index, reading] : readings_) {
    telemetry::GpuSample sample = reading.sample;
    if (auto it = others_.find(reading.uuid); it != others_.end()) sample.other_processes = it->second;
    if (auto it = xids_.find(index); it != xids_.end()) sample.xid = it->second;
    out.push_back(sample);
  }
  return out;
}

std::optional<uint32_t> GpuMonitor::index_of(const std::string& device) const {
  if (readings_.empty()) return std::nullopt;  // no GPU seen (yet)
  for (const auto& [index, reading] : readings_) {
    if (!device.empty() && (reading.uuid == device || reading.uuid.starts_with(device))) return index;
  }
  char* end = nullptr;
  unsigned long index = std::strtoul(device.c_str(), &end, 10);
  if (end != device.c_str() && *end == '\0') return static_cast<uint32_t>(index);
  return std::nullopt;
}

std::vector<std::string> GpuMonitor::take_notes() { return std::exchange(notes_, {}); }

}  // namespace muster::agent
