// `muster doctor`: flags -> doctor::DoctorOptions; the work is doctor::run_doctor. Exit 0 all good, 1 warnings,
// 2 errors (see doctor/checks/report.h).
#include <filesystem>

#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "doctor/run_doctor.h"
#include "fabric/run_fabric.h"

namespace muster::cli {

int run_doctor(const std::vector<std::string>& args) {
  auto app = make_app("doctor", "Check the whole cluster and say what to fix, per node: names, ssh between every pair "
                                "of nodes (fast by default, --ssh-matrix full), versions, code, shared filesystems, network interfaces for NCCL/gloo, "
                                "shm/memlock, GPUs, clocks; with --bandwidth, throughput and latency between nodes.");
  doctor::DoctorOptions options;
  doctor::ExamineOptions& examine = options.examine;
  bool no_ssh_matrix = false, bandwidth = false;
  std::string ssh_matrix = "fast";
  std::string bandwidth_mode = "ring";
  doctor::BandwidthOptions bandwidth_options;
  add_connect_options(*app, options.connect);
  add_fanout_option(*app, options.connect.fanout);
  app->add_option("--python", examine.python, "the interpreter the job will use (default python3 in PATH)");
  app->add_option("--path", examine.paths, "a code or data directory that must be identical on every node "
                                            "(default: the current directory)")
      ->type_name("DIR");
  app->add_flag("--json", options.json, "print the findings as JSON (schema in doctor/checks/report.h)");
  app->add_option("--container-image", examine.container_image,
                  "the job runs in containers of IMAGE: check the runtime, that every node has the same image id, "
                  "GPU support, and the versions inside the image")
      ->group("Containers");
  app->add_option("--container-runtime", examine.container_runtime,
                  "podman or docker (default: podman if installed, else docker)")
      ->check(CLI::IsMember({"podman", "docker"}))
      ->group("Containers");
  bool gpu = false;
  double fabric_seconds = 0.3;
  app->add_flag("--gpu", gpu,
                "check every GPU: XIDs since boot, ECC, row remaps, PCIe and NVLink links, clock slowdowns, persistence, "
                "MIG, other processes, the fabric manager, GPUDirect RDMA and InfiniBand ports");
  bool fabric = false;
  app->add_flag("--fabric", fabric,
                "instead of the checks: measure all_reduce between the nodes with the job's stack (torch.distributed, "
                "one rank per node: a ring over sizes up to 16 MiB, then pairwise rounds) and name a slow node or link");
  app->add_option("--fabric-seconds", fabric_seconds, "how long each --fabric measurement repeats")
      ->check(CLI::Range(0.05, 10.0))
      ->capture_default_str();
  app->add_flag("--import-torch", examine.import_torch,
                "import torch on every node to check that it sees the GPUs and its NCCL (~1.5 s of CPU per node)");
  app->add_option("--ssh-matrix", ssh_matrix,
                  "node-to-node ssh, every ordered pair: fast (each pair's address, host key and authorized key "
                  "checked without a key exchange, N real handshakes in a ring, a real ssh for any pair in doubt), "
                  "full (N×(N-1) real handshakes: also sshd rules per source address), off")
      ->check(CLI::IsMember({"fast", "full", "off"}))
      ->capture_default_str();
  app->add_flag("--no-ssh-matrix", no_ssh_matrix, "the same as --ssh-matrix off");
  examine.master_port = 29500;
  app->add_option("--master-port", examine.master_port,
                  "check this port is free on the first node and reachable from all (0: skip)")
      ->capture_default_str();
  app->add_flag("--bandwidth", bandwidth,
                "also measure TCP throughput and latency between nodes (bounded: see --bandwidth-seconds) and flag "
                "slow links");
  app->add_option("--bandwidth-mode", bandwidth_mode,
                  "ring: each node sends to the next, all at once (one round); pairs: every ordered pair, in N-1 "
                  "rounds of disjoint pairs")
      ->check(CLI::IsMember({"ring", "pairs"}))
      ->capture_default_str();
  app->add_option("--bandwidth-seconds", bandwidth_options.seconds,
                  "how long each round streams, after a 0.25 s warm-up that is not counted")
      ->check(CLI::Range(0.2, 60.0))
      ->capture_default_str();
  if (auto code = parse_command_line(*app, args)) return *code;
  if (fabric) {
    auto code = fabric::run_fabric({options.connect, examine.python, fabric_seconds, options.json});
    return code ? *code : report_error(code.error());
  }
  if (bandwidth) {
    auto mode = doctor::parse_bandwidth_mode(bandwidth_mode);
    if (!mode) return report_error(mode.error());
    bandwidth_options.mode = *mode;
    examine.bandwidth = bandwidth_options;
  }
  if (gpu) examine.gpu = doctor::GpuRound::always;
  if (examine.paths.empty()) examine.paths.push_back(std::filesystem::current_path().string());
  auto matrix = doctor::parse_ssh_matrix_mode(ssh_matrix);
  if (!matrix) {
    return report_error(make_error(ErrorKind::usage, "--ssh-matrix {}: want fast, full or off", ssh_matrix));
  }
  examine.ssh_matrix = no_ssh_matrix ? doctor::SshMatrixMode::off : *matrix;
  examine.slots_per_node = options.connect.hosts.selection.nproc_per_node;
  auto code = doctor::run_doctor(options);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
