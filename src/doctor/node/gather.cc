#include "doctor/node/gather.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <thread>

#include "container/node_probe.h"
#include "container/runtime_argv.h"
#include "doctor/node/filesystem_type.h"
#include "doctor/node/nvidia_smi.h"
#include "doctor/node/os_release.h"
#include "doctor/node/python_probe.h"
#include "posix/environment.h"
#include "posix/file.h"
#include "posix/interfaces.h"
#include "posix/run_commands.h"
#include "posix/socket.h"
#include "posix/system_info.h"
#include "util/text.h"

namespace muster::doctor {

using posix::CommandOutcome;
using posix::run_commands;
namespace {

namespace fs = std::filesystem;

constexpr const char* cuda_nvcc = "/usr/local/cuda/bin/nvcc";

// A small file of the system's (/etc/os-release, /sys/...), whole; empty when it is missing or refuses the read.
std::string read_small_file(const std::string& path) {
  auto text = posix::read_text_file(path);
  return text ? std::move(*text) : std::string();
}

// The first line of `text` that is not blank, trimmed.
std::string first_line(std::string_view text) {
  for (auto line : split_lines(text)) {
    if (!trim(line).empty()) return std::string(trim(line));
  }
  return {};
}

// The last line of `text` that is not blank, trimmed.
std::string last_line(std::string_view text) {
  auto lines = split_lines(text);
  for (auto line = lines.rbegin(); line != lines.rend(); ++line) {
    if (!trim(*line).empty()) return std::string(trim(*line));
  }
  return {};
}

// Why a command did not give a usable answer, in one line.
std::string failure(const CommandOutcome& outcome) {
  if (!outcome.error.empty()) return outcome.error;
  std::string said = first_line(outcome.err.empty() ? outcome.out : outcome.err);
  std::string how = posix::describe(outcome.status);
  return said.empty() ? how : said + " (" + how + ")";
}

void add_system(NodeFacts& facts) {
  if (auto name = posix::hostname()) facts.hostname = *name;
  OsRelease release = parse_os_release(read_small_file("/etc/os-release"));
  facts.os_id = release.id;
  facts.os_version = release.version_id;
  facts.os_pretty = release.pretty_name;
  if (auto kernel = posix::kernel_release()) facts.kernel = *kernel;
  facts.cpus = posix::online_cpus();
  facts.memory_bytes = posix::physical_memory_bytes();
  if (auto shm = posix::filesystem_info("/dev/shm")) facts.shm_bytes = shm->total_bytes;
  if (auto memlock = posix::memlock_limit()) facts.memlock_bytes = *memlock;
}

int64_t link_speed(const std::string& interface) {
  std::string text = read_small_file("/sys/class/net/" + interface + "/speed");
  try {
    int64_t speed = std::stoll(text);
    return speed > 0 ? speed : -1;
  } catch (const std::exception&) {
    return -1;  // virtual links refuse the read (EINVAL), some report garbage
  }
}

void add_network(NodeFacts& facts, const GatherOptions& options) {
  if (auto addresses = posix::interface_addresses()) {
    for (const auto& address : *addresses) {
      std::error_code error;
      bool physical = fs::exists("/sys/class/net/" + address.interface + "/device", error);
      facts.interfaces.push_back({address.interface, address.address, address.family, address.up, address.loopback,
                                  link_speed(address.interface), physical});
    }
  }
  std::error_code error;
  for (fs::directory_iterator it("/sys/class/infiniband", error), end; !error && it != end; it.increment(error)) {
    facts.infiniband.push_back(it->path().filename().string());
  }
  std::sort(facts.infiniband.begin(), facts.infiniband.end());
  for (const auto& name : options.resolve) {
    auto addresses = posix::resolve_addresses(name);
    facts.resolves[name] = addresses ? *addresses : std::vector<std::string>{};
  }
}

PathFacts describe_path(const std::string& path, const TreeHashLimits& limits) {
  PathFacts facts;
  facts.path = path;
  std::error_code error;
  facts.exists = fs::exists(path, error);
  if (!facts.exists) return facts;
  if (auto info = posix::filesystem_info(path)) {
    facts.fs_type = filesystem_type_name(info->type_magic);
    facts.free_bytes = info->free_bytes;
  }
  TreeHash tree = hash_tree(path, limits);
  facts.files = tree.files;
  facts.content_hash = tree.hash;
  facts.file_hashes = std::move(tree.file_hashes);
  return facts;
}

void add_nvidia(NodeFacts& facts, const CommandOutcome& query, const CommandOutcome& header) {
  if (!query.started) return;  // no nvidia-smi: a CPU node, not an error
  facts.has_nvidia_smi = true;
  if (!query.succeeded()) {
    facts.nvidia_smi_error = failure(query);
    return;
  }
  facts.gpus = parse_gpu_query(query.out);
  if (header.succeeded()) facts.cuda_driver_version = parse_cuda_version(header.out);
}

void add_python(PythonFacts& python, const CommandOutcome& probe) {
  if (!probe.succeeded()) {
    python.error = probe.started && !probe.timed_out && !probe.err.empty()
                       ? last_line(probe.err) + " (" + posix::describe(probe.status) + ")"
                       : failure(probe);
    return;
  }
  parse_python_probe(probe.out, python);
}

// The job's caches as this environment (the node's, with the job's variables the head passed) makes them.
void add_caches(NodeFacts& facts) {
  std::map<std::string, std::string> env;
  for (const auto& text : posix::current_environment()) {
    auto eq = text.find('=');
    if (eq != std::string::npos) env[text.substr(0, eq)] = text.substr(eq + 1);
  }
  facts.caches = job_cache_dirs(env, posix::home_directory());
  for (auto& cache : facts.caches) {
    fs::path at(cache.path);
    std::error_code error;
    while (!at.empty() && !fs::is_directory(at, error) && at.has_parent_path() && at.parent_path() != at) {
      at = at.parent_path();
    }
    if (fs::is_directory(at, error)) cache.probe = at.string();
  }
}

// The runtime and image part of a container check; the python probe then runs inside the image.
std::optional<container::Runtime> add_container_commands(NodeFacts& facts, const GatherOptions& options,
                                                         std::vector<std::vector<std::string>>& commands) {
  facts.container.image = options.container_image;
  auto gpus = container::gather_gpu_facts();
  facts.container.gpu_devices = gpus.nvidia_devices;
  facts.container.gpu_cdi = gpus.cdi_nvidia;
  facts.container.gpu_toolkit = gpus.nvidia_toolkit;
  auto runtime = container::installed_runtime(options.container_runtime);
  if (!runtime) {
    facts.container.error = options.container_runtime.empty()
                                ? "neither podman nor docker is installed (not in PATH)"
                                : options.container_runtime + " is not installed (not in PATH)";
    return std::nullopt;
  }
  facts.container.runtime = container::runtime_name(*runtime);
  commands[3] = container::probe_argv(*runtime, options.container_image, options.python,
                                      {"-c", python_probe_script(options.import_torch)});
  commands.push_back({container::runtime_name(*runtime), "--version"});
  commands.push_back(container::image_id_argv(*runtime, options.container_image));
  return runtime;
}

void add_container(NodeFacts& facts, const std::vector<CommandOutcome>& outcomes) {
  if (outcomes.size() < 6) return;
  if (outcomes[4].succeeded()) facts.container.runtime_version = last_line(outcomes[4].out);
  if (outcomes[5].succeeded()) {
    facts.container.image_id = container::normalize_image_id(outcomes[5].out);
  } else if (outcomes[5].started && !outcomes[5].timed_out &&
             outcomes[5].status != posix::ExitStatus(posix::Exited{1}) &&
             outcomes[5].status != posix::ExitStatus(posix::Exited{125})) {  // 1 docker, 125 podman: no such image
    facts.container.error = failure(outcomes[5]);
  }
}

}  // namespace

NodeFacts gather(const GatherOptions& options) {
  NodeFacts facts;
  std::vector<std::vector<std::string>> commands = {
      {"nvidia-smi", "--query-gpu=" + std::string(gpu_query_fields), "--format=csv,noheader,nounits"},
      {"nvidia-smi"},
      {"nvcc", "--version"},
      {options.python, "-c", python_probe_script(options.import_torch)},
  };
  if (!options.container_image.empty()) add_container_commands(facts, options, commands);
  std::vector<CommandOutcome> outcomes;
  std::jthread probes([&] { outcomes = run_commands(commands, options.timeout_ms); });
  add_system(facts);
  add_network(facts, options);
  for (const auto& path : options.paths) facts.paths.push_back(describe_path(path, options.tree_limits));
  if (options.caches) add_caches(facts);
  probes.join();

  add_nvidia(facts, outcomes[0], outcomes[1]);
  CommandOutcome nvcc = outcomes[2];
  std::error_code error;
  if (!nvcc.started && fs::exists(cuda_nvcc, error)) {
    nvcc = run_commands({{cuda_nvcc, "--version"}}, options.timeout_ms).front();  // CUDA is often not in PATH
  }
  if (nvcc.succeeded()) facts.nvcc_version = parse_nvcc_release(nvcc.out);
  facts.python.path = options.python;
  add_python(facts.python, outcomes[3]);
  add_container(facts, outcomes);
  if (!facts.container.image.empty() && facts.container.image_id.empty() && !facts.container.runtime.empty()) {
    facts.python.error = "the image is not on this node";  // not python's fault: the container check says it
  }
  facts.clock_unix_ms = posix::unix_time_ms();
  return facts;
}

}  // namespace muster::doctor
