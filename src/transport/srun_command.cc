#include "transport/srun_command.h"

#include <algorithm>

#include "transport/ssh_command.h"

namespace muster::transport {

const std::vector<std::string>& srun_input_variables_removed() {
  static const std::vector<std::string> names = {
      "SLURM_CPUS_PER_TASK", "SLURM_CPU_BIND",   "SLURM_DISTRIBUTION", "SLURM_EXACT",
      "SLURM_MEM_PER_CPU",   "SLURM_MEM_PER_GPU", "SLURM_MEM_PER_NODE", "SLURM_NPROCS",
      "SLURM_NTASKS",        "SLURM_NTASKS_PER_NODE", "SLURM_GPUS_PER_TASK", "SLURM_NTASKS_PER_GPU",
      "SLURM_TRES_PER_TASK",
  };
  return names;
}

const std::vector<std::string>& step_variables_removed() {
  static const std::vector<std::string> names = {
      "SLURM_CPU_BIND",          "SLURM_CPU_BIND_LIST",     "SLURM_CPU_BIND_TYPE",    "SLURM_CPU_BIND_VERBOSE",
      "SLURM_DISTRIBUTION",      "SLURM_GTIDS",             "SLURM_LAUNCH_NODE_IPADDR", "SLURM_LOCALID",
      "SLURM_NNODES",            "SLURM_NODEID",            "SLURM_NPROCS",           "SLURM_NTASKS",
      "SLURM_NTASKS_PER_NODE",   "SLURM_PRIO_PROCESS",      "SLURM_PROCID",           "SLURM_SRUN_COMM_HOST",
      "SLURM_SRUN_COMM_PORT",    "SLURM_STEPID",            "SLURM_STEP_ID",          "SLURM_STEP_LAUNCHER_PORT",
      "SLURM_STEP_NODELIST",     "SLURM_STEP_NUM_NODES",    "SLURM_STEP_NUM_TASKS",   "SLURM_STEP_TASKS_PER_NODE",
      "SLURM_TASKS_PER_NODE",    "SLURM_TASK_PID",          "SLURM_UMASK",            "SLURM_STEP_GPUS",
  };
  return names;
}

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// `env -u A -u B ...` (no command yet).
std::vector<std::string> env_without(const std::vector<std::string>& names) {
  std::vector<std::string> words = {"env"};
  for (const auto& name : names) {
    words.push_back("-u");
    words.push_back(name);
  }
  return words;
}

}  // namespace

std::vector<std::string> srun_argv(const std::string& node,
                                   const std::map<std::string, std::string>& head_env,
                                   const std::vector<std::string>& command) {
  std::vector<std::string> argv = env_without(srun_input_variables_removed());
  for (const char* word : {"srun", "--overlap", "--nodes=1", "--ntasks=1", "--ntasks-per-node=1", "--unbuffered",
                           "--quiet", "--mpi=none", "--export=ALL", "--job-name=muster-agent"}) {
    argv.emplace_back(word);
  }
  argv.push_back("--nodelist=" + node);
  argv.push_back("--");
  // In the step: drop the agent's task and step variables, give back the job-level ones srun did not get.
  std::vector<std::string> removed = step_variables_removed();
  std::vector<std::string> restored;
  auto give_back = [&](const std::string& name) {
    auto value = head_env.find(name);
    if (value != head_env.end()) restored.push_back(name + "=" + value->second);
  };
  give_back("SLURM_JOB_NAME");  // srun --job-name renamed it in the step
  if (!head_env.contains("SLURM_JOB_NAME")) removed.push_back("SLURM_JOB_NAME");
  for (const auto& name : srun_input_variables_removed()) {
    if (!contains(removed, name)) give_back(name);
  }
  auto in_step = env_without(removed);
  argv.insert(argv.end(), in_step.begin(), in_step.end());
  argv.insert(argv.end(), restored.begin(), restored.end());
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::string> bootstrap_words(const SelfBinary& binary, const std::vector<std::string>& agent_args) {
  std::vector<std::string> words = {"sh", "-c", bootstrap_script(), "muster-bootstrap", binary.build_id,
                                    std::to_string(binary.size), binary.sha256};
  words.insert(words.end(), agent_args.begin(), agent_args.end());
  return words;
}

}  // namespace muster::transport
