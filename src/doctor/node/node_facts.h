// What `muster doctor` knows about one node: gathered on the node by `muster node facts` (node/gather.h), sent to
// the head as JSON (to_json/from_json), compared across nodes by the checks (checks/checks.h). Plain data; every
// field is optional in JSON (a node that cannot tell leaves it out), so older and newer muster interoperate.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/node/cache_dirs.h"

namespace muster::doctor {

struct Gpu {
  int index = 0;
  std::string name;        // "NVIDIA H100 80GB HBM3"
  int64_t memory_mib = 0;  // total
  std::string uuid;
  std::string driver;      // driver version, as nvidia-smi reports it ("550.54.15")

  // The JSON keys, in one place for to_json and from_json.
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.index, "index");
    visit(m.name, "name");
    visit(m.memory_mib, "memory_mib");
    visit(m.uuid, "uuid");
    visit(m.driver, "driver");
  }
};

struct PythonFacts {
  std::string path;     // the interpreter the job will use (`--python`, default python3 in PATH)
  std::string version;  // "3.11.2"
  // Distribution versions by name: torch, deepspeed, accelerate, transformers, numpy, ... (absent: not there)
  std::map<std::string, std::string> packages;
  std::string torch_cuda;  // torch.version.cuda ("12.1"), empty for a CPU build
  std::string torch_nccl;  // torch.cuda.nccl.version() joined with dots, empty when unavailable
  int torch_cuda_devices = -1;  // torch.cuda.device_count(), -1 when torch is missing
  std::string error;            // why the probe failed (interpreter missing, ...)

  // The JSON keys, in one place for to_json and from_json.
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.path, "path");
    visit(m.version, "version");
    visit(m.packages, "packages");
    visit(m.torch_cuda, "torch_cuda");
    visit(m.torch_nccl, "torch_nccl");
    visit(m.torch_cuda_devices, "torch_cuda_devices");
    visit(m.error, "error");
  }
};

struct Interface {
  std::string name;
  std::string address;
  int family = 4;
  bool up = false;
  bool loopback = false;
  int64_t speed_mbps = -1;  // /sys/class/net/<if>/speed; -1 unknown (virtual links)
  bool physical = false;    // /sys/class/net/<if>/device exists: a NIC, not a veth, bridge or tunnel

  // The JSON keys, in one place for to_json and from_json.
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.name, "name");
    visit(m.address, "address");
    visit(m.family, "family");
    visit(m.up, "up");
    visit(m.loopback, "loopback");
    visit(m.speed_mbps, "speed_mbps");
    visit(m.physical, "physical");
  }
};

struct PathFacts {
  std::string path;
  bool exists = false;
  std::string fs_type;      // from statfs: "ext4", "nfs", "tmpfs", ...
  int64_t free_bytes = -1;
  int64_t files = 0;        // regular files under it (bounded walk)
  std::string content_hash;  // XXH3 over sorted (relative path, size, content) of regular files; empty if too big
  std::map<std::string, std::string> file_hashes;  // relative path -> hash, for naming differing files (bounded)

  // The JSON keys, in one place for to_json and from_json.
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.path, "path");
    visit(m.exists, "exists");
    visit(m.fs_type, "fs_type");
    visit(m.free_bytes, "free_bytes");
    visit(m.files, "files");
    visit(m.content_hash, "content_hash");
    visit(m.file_hashes, "file_hashes");
  }
};

// `muster doctor --container-image IMAGE` (and launch --preflight with one): what the node offers the job's
// containers. When `image` is set, NodeFacts::python was read inside the image, not on the node.
struct ContainerFacts {
  std::string image;            // the image asked about ("" = no container check)
  std::string runtime;          // podman or docker, the one the job would use; "" = none installed
  std::string runtime_version;  // first line of `<runtime> --version`
  std::string image_id;         // bare hex; "" = not on this node
  bool gpu_devices = false;     // /dev/nvidiactl
  bool gpu_cdi = false;         // a CDI spec names nvidia.com/gpu (podman)
  bool gpu_toolkit = false;     // the NVIDIA Container Toolkit's programs are in PATH (docker --gpus)
  std::string error;            // why the runtime or the image could not be inspected

  // The JSON keys, in one place for to_json and from_json.
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.image, "image");
    visit(m.runtime, "runtime");
    visit(m.runtime_version, "runtime_version");
    visit(m.image_id, "image_id");
    visit(m.gpu_devices, "gpu_devices");
    visit(m.gpu_cdi, "gpu_cdi");
    visit(m.gpu_toolkit, "gpu_toolkit");
    visit(m.error, "error");
  }
};

struct NodeFacts {
  std::string hostname;
  std::string os_id, os_version, os_pretty;  // /etc/os-release
  std::string kernel;                        // uname -r
  int cpus = 0;
  int64_t memory_bytes = 0;
  std::vector<Gpu> gpus;
  std::string cuda_driver_version;  // "CUDA Version" of nvidia-smi's header, e.g. "12.4"
  std::string nvidia_smi_error;     // empty when nvidia-smi ran (or is simply absent: see has_nvidia_smi)
  bool has_nvidia_smi = false;
  std::string nvcc_version;         // empty when nvcc is absent
  PythonFacts python;
  std::vector<Interface> interfaces;
  std::vector<std::string> infiniband;  // /sys/class/infiniband entries (mlx5_0, ...)
  int64_t shm_bytes = -1;               // /dev/shm size
  int64_t memlock_bytes = -2;           // RLIMIT_MEMLOCK soft limit; -1 unlimited, -2 unknown
  int64_t clock_unix_ms = 0;            // wall clock when gathered
  std::map<std::string, std::vector<std::string>> resolves;  // node name -> addresses this node resolves it to
  std::vector<PathFacts> paths;
  std::vector<CacheDir> caches;  // the job's cache directories on this node (node/cache_dirs.h), when asked
  ContainerFacts container;

  // The JSON keys, in one place for to_json and from_json.
  template <typename Self, typename Visit>
  static void fields(Self& m, Visit& visit) {
    visit(m.hostname, "hostname");
    visit(m.os_id, "os_id");
    visit(m.os_version, "os_version");
    visit(m.os_pretty, "os_pretty");
    visit(m.kernel, "kernel");
    visit(m.cpus, "cpus");
    visit(m.memory_bytes, "memory_bytes");
    visit(m.gpus, "gpus");
    visit(m.cuda_driver_version, "cuda_driver_version");
    visit(m.nvidia_smi_error, "nvidia_smi_error");
    visit(m.has_nvidia_smi, "has_nvidia_smi");
    visit(m.nvcc_version, "nvcc_version");
    visit(m.python, "python");
    visit(m.interfaces, "interfaces");
    visit(m.infiniband, "infiniband");
    visit(m.shm_bytes, "shm_bytes");
    visit(m.memlock_bytes, "memlock_bytes");
    visit(m.clock_unix_ms, "clock_unix_ms");
    visit(m.resolves, "resolves");
    visit(m.paths, "paths");
    visit(m.caches, "caches");
    visit(m.container, "container");
  }
};

// JSON with the field names as keys. from_json tolerates missing keys and nulls (the field keeps its default);
// a key of the wrong type throws nlohmann::json::exception.
void to_json(nlohmann::json& json, const Gpu& gpu);
void from_json(const nlohmann::json& json, Gpu& gpu);
void to_json(nlohmann::json& json, const PythonFacts& python);
void from_json(const nlohmann::json& json, PythonFacts& python);
void to_json(nlohmann::json& json, const Interface& interface);
void from_json(const nlohmann::json& json, Interface& interface);
void to_json(nlohmann::json& json, const PathFacts& path);
void from_json(const nlohmann::json& json, PathFacts& path);
void to_json(nlohmann::json& json, const CacheDir& cache);
void from_json(const nlohmann::json& json, CacheDir& cache);
void to_json(nlohmann::json& json, const ContainerFacts& container);
void from_json(const nlohmann::json& json, ContainerFacts& container);
void to_json(nlohmann::json& json, const NodeFacts& facts);
void from_json(const nlohmann::json& json, NodeFacts& facts);

}  // namespace muster::doctor
