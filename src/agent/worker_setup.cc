#include "agent/worker_setup.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "posix/clock.h"
#include "posix/environment.h"
#include "posix/file.h"
#include "posix/kernel_log.h"
#include "posix/proc.h"
#include "posix/socket.h"
#include "protocol/messages.h"

namespace muster::agent {
namespace {

constexpr size_t kMaxErrorFile = 1 << 20;
// The flight recorder's dumps a worker's notes carry to the head (each in one frame, below kMaxFrame): a dump of
// 2,000 entries with Python frames is a few MB. Larger ones, and those past the total, stay on the node (named).
constexpr uint64_t kMaxFlightDump = 8u << 20;
constexpr uint64_t kMaxFlightDumpsTotal = 32u << 20;
constexpr int64_t kOomSlackMs = 1000;  // the kernel's clock and ours agree to a few ms; allow more

std::string state_base() {
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state && *state == '/') return state;
  std::string home = posix::home_directory();
  return home.empty() ? "" : home + "/.local/state";
}

// A name the head sent that becomes one path component: nothing but [A-Za-z0-9._-], never "." or "..".
std::string component(std::string name) {
  for (char& c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-';
    if (!ok) c = '_';
  }
  if (name.empty() || name == "." || name == "..") name = "_" + name;
  return name;
}

uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

void set_if_unset(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  if (!posix::find_variable(env, name)) env.push_back(name + "=" + value);
}

// Whether this node has NVIDIA GPUs: /dev/nvidiactl, unless MUSTER_NODE_GPUS (1 or 0) in the agent's environment
// says otherwise (tests simulate a GPU node with it; a node whose driver is not seen there can say so).
bool node_has_gpus() {
  const char* said = std::getenv("MUSTER_NODE_GPUS");
  if (said && (std::string_view(said) == "1" || std::string_view(said) == "0")) return said[0] == '1';
  return posix::path_exists("/dev/nvidiactl");
}

// The regular files in `dir` whose names start with `prefix` (the flight recorder appends the rank), sorted.
std::vector<std::string> files_starting_with(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> found;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().filename().string().starts_with(prefix)) found.push_back(entry.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// The dumps under `flight_prefix` (<dir>/flight-recorder-<worker>/nccl_trace_rank_): their node paths as
// "flight-recorder", and each one's bytes, within the bounds, as "flight-recorder-dump:<file name>".
void collect_flight_dumps(const std::string& flight_prefix, std::map<std::string, std::string>& notes) {
  std::filesystem::path prefix(flight_prefix);
  std::string paths;
  uint64_t total = 0;
  for (const auto& path : files_starting_with(prefix.parent_path().string(), prefix.filename().string())) {
    paths += (paths.empty() ? "" : "\n") + path;
    auto st = posix::lstat_path(path);
    if (!st || !*st || !(*st)->is_file() || (*st)->size > kMaxFlightDump || total + (*st)->size > kMaxFlightDumpsTotal) {
      continue;
    }
    auto bytes = posix::read_regular_file(path, false, kMaxFlightDump);
    if (!bytes || bytes->empty()) continue;
    total += bytes->size();
    notes["flight-recorder-dump:" + std::filesystem::path(path).filename().string()] = std::move(*bytes);
  }
  if (!paths.empty()) notes["flight-recorder"] = paths;
}

std::string node_component(const std::string& node) {
  auto host = node.empty() ? posix::hostname() : Result<std::string>(node);
  return component(host ? *host : "node");
}

std::string runs_dir() { return state_base() + "/muster/runs"; }

}  // namespace

std::string job_node_dir(const std::string& job, const std::string& node) {
  return fmt::format("{}/{}/{}", runs_dir(), component(job), node_component(node));
}

WorkerSetup::WorkerSetup(int stack_signal, std::string_view hook_text, std::optional<bool> gpus)
    : stack_signal_(stack_signal), hook_text_(hook_text), gpus_(gpus ? *gpus : node_has_gpus()) {}

Result<std::string> WorkerSetup::hook_dir() {
  if (!hook_dir_.empty()) return hook_dir_;
  std::string dir = fmt::format("{}/muster/python/{:016x}", state_base(), fnv1a(hook_text_));
  if (auto made = posix::ensure_private_dir(dir); !made) return made.error();
  std::string file = dir + "/sitecustomize.py";
  auto current = posix::read_regular_file(file, false, hook_text_.size());
  if (!current || *current != hook_text_) {
    if (auto written = posix::write_file_atomic(file, hook_text_, 0600); !written) return written.error();
  }
  hook_dir_ = dir;
  return hook_dir_;
}

Result<WorkerPaths> WorkerSetup::prepare(const std::string& job, uint32_t worker, uint32_t features,
                                         std::vector<std::string>& env) {
  WorkerPaths paths;
  if ((features & protocol::kFeatureDiagnostics) == 0) return paths;
  if (state_base().empty()) return make_error(ErrorKind::usage, "no home directory for muster's per-job files");
  std::string dir = job_node_dir(job, node_name_);
  paths.dir = dir;
  paths.stacks_dir = dir + "/stacks";
  for (const auto& private_dir : {state_base() + "/muster", dir, paths.stacks_dir}) {
    if (auto made = posix::ensure_private_dir(private_dir); !made) return made.error();
  }
  if (!taken_.contains(dir)) {  // this job's directory is in use (run_state.h) until finish()
    auto taken = RunStateDir::take(runs_dir(), component(job), node_component(node_name_));
    if (!taken) return taken.error();
    taken_.emplace(dir, std::move(*taken));
    if (!std::exchange(pruned_, true)) prune_run_states(runs_dir(), node_component(node_name_), posix::wall_clock_ns());
  }
  auto hook = hook_dir();
  if (!hook) return hook.error();
  paths.progress_file = fmt::format("{}/progress-{}", dir, worker);
  paths.error_file = fmt::format("{}/error-{}.json", dir, worker);
  posix::remove_file(paths.error_file);  // an earlier attempt's exception is not this one's
  set_if_unset(env, "PYTHONFAULTHANDLER", "1");
  set_if_unset(env, "MUSTER_PROGRESS_FILE", paths.progress_file);
  set_if_unset(env, "TORCHELASTIC_ERROR_FILE", paths.error_file);
  set_if_unset(env, "MUSTER_STACKS_DIR", paths.stacks_dir);
  set_if_unset(env, "MUSTER_STACKS_SIGNAL", std::to_string(stack_signal_));
  auto python_path = posix::find_variable(env, "PYTHONPATH");
  std::string value = *hook + (python_path && !python_path->empty() ? ":" + *python_path : "");
  std::erase_if(env, [](const std::string& entry) { return entry.starts_with("PYTHONPATH="); });
  env.push_back("PYTHONPATH=" + value);
  if ((features & protocol::kFeatureFlightRecorder) != 0 && gpus_) {
    // A directory per worker: the file names are torch's (prefix + rank), and a worker that is a launcher
    // (accelerate, torchrun) has several ranks; an earlier attempt's dumps are not this one's.
    std::string flight_dir = fmt::format("{}/flight-recorder-{}", dir, worker);
    if (auto made = posix::ensure_private_dir(flight_dir); !made) return made.error();
    for (const auto& old : files_starting_with(flight_dir, "")) posix::remove_file(old);
    paths.flight_prefix = flight_dir + "/nccl_trace_rank_";
    set_if_unset(env, "TORCH_NCCL_TRACE_BUFFER_SIZE", "2000");
    set_if_unset(env, "TORCH_NCCL_DUMP_ON_TIMEOUT", "1");
    set_if_unset(env, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE", paths.flight_prefix);
  }
  return paths;
}

void WorkerSetup::finish(bool head_lost) {
  for (auto& [dir, taken] : taken_) {
    if (!head_lost && !failed_.contains(dir)) taken.remove();
  }
  taken_.clear();
}

std::map<std::string, std::string> WorkerSetup::collect(const WorkerPaths& paths, int pid, bool killed,
                                                         int64_t started_ms, uint64_t oom_kills_at_start,
                                                         bool kernel_log) {
  std::map<std::string, std::string> notes;
  if (!paths.dir.empty()) failed_.insert(paths.dir);
  if (!paths.error_file.empty() && posix::path_exists(paths.error_file)) {
    auto text = posix::read_regular_file(paths.error_file, false, kMaxErrorFile);
    if (text && !text->empty()) notes["error-file"] = *text;
  }
  if (!paths.flight_prefix.empty()) collect_flight_dumps(paths.flight_prefix, notes);
  if (!kernel_log) return notes;
  // The kernel's OOM killer: "Out of memory: Killed process 1234 (python3) total-vm:..." or "Memory cgroup out
  // of memory: Killed process 1234 ...", while the worker ran. A SIGKILLed worker: its own line, or the last one
  // (the kernel names processes by their pid outside any PID namespace or container, which may not be the pid
  // the agent knows). Otherwise (a DataLoader worker, a child was killed): the last one, as "oom-kill-node".
  auto lines = posix::kernel_log_lines("Killed process ", started_ms - kOomSlackMs);
  if (lines) {
    if (lines->empty()) return notes;
    std::string own = fmt::format("Killed process {} ", pid);
    std::string line = lines->back().text;
    for (const auto& candidate : *lines) {
      if (candidate.text.find(own) != std::string::npos) line = candidate.text;
    }
    notes[killed ? "oom-kill" : "oom-kill-node"] = line;
    return notes;
  }
  // The kernel log is root's here (dmesg_restrict): the machine's OOM-kill count still tells that it happened.
  auto count = posix::oom_kill_count();
  if (killed && count && *count > oom_kills_at_start) {
    notes["oom-kill"] = fmt::format("the kernel's OOM killer killed {} process(es) on this node while the rank ran "
                                    "(/proc/vmstat oom_kill; the kernel log that names them is readable by root only)",
                                    *count - oom_kills_at_start);
  }
  return notes;
}

}  // namespace muster::agent
