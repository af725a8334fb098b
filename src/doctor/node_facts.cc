#include "doctor/node_facts.h"

namespace muster::doctor {
namespace {

// Reads json[key] into `field` when present and not null; otherwise `field` keeps its value.
template <typename T>
void read(const nlohmann::json& json, const char* key, T& field) {
  auto found = json.find(key);
  if (found != json.end() && !found->is_null()) found->get_to(field);
}

}  // namespace

void to_json(nlohmann::json& json, const Gpu& gpu) {
  json = {{"index", gpu.index}, {"name", gpu.name}, {"memory_mib", gpu.memory_mib}, {"uuid", gpu.uuid},
          {"driver", gpu.driver}};
}

void from_json(const nlohmann::json& json, Gpu& gpu) {
  read(json, "index", gpu.index);
  read(json, "name", gpu.name);
  read(json, "memory_mib", gpu.memory_mib);
  read(json, "uuid", gpu.uuid);
  read(json, "driver", gpu.driver);
}

void to_json(nlohmann::json& json, const PythonFacts& python) {
  json = {{"path", python.path},
          {"version", python.version},
          {"packages", python.packages},
          {"torch_cuda", python.torch_cuda},
          {"torch_nccl", python.torch_nccl},
          {"torch_cuda_devices", python.torch_cuda_devices},
          {"error", python.error}};
}

void from_json(const nlohmann::json& json, PythonFacts& python) {
  read(json, "path", python.path);
  read(json, "version", python.version);
  read(json, "packages", python.packages);
  read(json, "torch_cuda", python.torch_cuda);
  read(json, "torch_nccl", python.torch_nccl);
  read(json, "torch_cuda_devices", python.torch_cuda_devices);
  read(json, "error", python.error);
}

void to_json(nlohmann::json& json, const Interface& interface) {
  json = {{"name", interface.name},         {"address", interface.address}, {"family", interface.family},
          {"up", interface.up},             {"loopback", interface.loopback},
          {"speed_mbps", interface.speed_mbps}, {"physical", interface.physical}};
}

void from_json(const nlohmann::json& json, Interface& interface) {
  read(json, "name", interface.name);
  read(json, "address", interface.address);
  read(json, "family", interface.family);
  read(json, "up", interface.up);
  read(json, "loopback", interface.loopback);
  read(json, "speed_mbps", interface.speed_mbps);
  read(json, "physical", interface.physical);
}

void to_json(nlohmann::json& json, const PathFacts& path) {
  json = {{"path", path.path},
          {"exists", path.exists},
          {"fs_type", path.fs_type},
          {"free_bytes", path.free_bytes},
          {"files", path.files},
          {"content_hash", path.content_hash},
          {"file_hashes", path.file_hashes}};
}

void from_json(const nlohmann::json& json, PathFacts& path) {
  read(json, "path", path.path);
  read(json, "exists", path.exists);
  read(json, "fs_type", path.fs_type);
  read(json, "free_bytes", path.free_bytes);
  read(json, "files", path.files);
  read(json, "content_hash", path.content_hash);
  read(json, "file_hashes", path.file_hashes);
}

void to_json(nlohmann::json& json, const NodeFacts& facts) {
  json = {{"hostname", facts.hostname},
          {"os_id", facts.os_id},
          {"os_version", facts.os_version},
          {"os_pretty", facts.os_pretty},
          {"kernel", facts.kernel},
          {"cpus", facts.cpus},
          {"memory_bytes", facts.memory_bytes},
          {"gpus", facts.gpus},
          {"cuda_driver_version", facts.cuda_driver_version},
          {"nvidia_smi_error", facts.nvidia_smi_error},
          {"has_nvidia_smi", facts.has_nvidia_smi},
          {"nvcc_version", facts.nvcc_version},
          {"python", facts.python},
          {"interfaces", facts.interfaces},
          {"infiniband", facts.infiniband},
          {"shm_bytes", facts.shm_bytes},
          {"memlock_bytes", facts.memlock_bytes},
          {"clock_unix_ms", facts.clock_unix_ms},
          {"resolves", facts.resolves},
          {"paths", facts.paths}};
}

void from_json(const nlohmann::json& json, NodeFacts& facts) {
  read(json, "hostname", facts.hostname);
  read(json, "os_id", facts.os_id);
  read(json, "os_version", facts.os_version);
  read(json, "os_pretty", facts.os_pretty);
  read(json, "kernel", facts.kernel);
  read(json, "cpus", facts.cpus);
  read(json, "memory_bytes", facts.memory_bytes);
  read(json, "gpus", facts.gpus);
  read(json, "cuda_driver_version", facts.cuda_driver_version);
  read(json, "nvidia_smi_error", facts.nvidia_smi_error);
  read(json, "has_nvidia_smi", facts.has_nvidia_smi);
  read(json, "nvcc_version", facts.nvcc_version);
  read(json, "python", facts.python);
  read(json, "interfaces", facts.interfaces);
  read(json, "infiniband", facts.infiniband);
  read(json, "shm_bytes", facts.shm_bytes);
  read(json, "memlock_bytes", facts.memlock_bytes);
  read(json, "clock_unix_ms", facts.clock_unix_ms);
  read(json, "resolves", facts.resolves);
  read(json, "paths", facts.paths);
}

}  // namespace muster::doctor
