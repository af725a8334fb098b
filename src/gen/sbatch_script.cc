#include "gen/sbatch_script.h"

#include <fmt/format.h>

#include <algorithm>

#include "cluster/hostlist.h"
#include "gen/plan_queries.h"
#include "gen/provenance.h"
#include "util/shell_quote.h"

namespace muster::gen {
namespace {

// #SBATCH lines are split on whitespace by sbatch; values here are single words from a small alphabet.
Result<void> check_field(std::string_view flag, const std::string& value, std::string_view extra_chars) {
  bool ok = !value.empty() && std::all_of(value.begin(), value.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           extra_chars.find(c) != std::string_view::npos;
  });
  if (ok) return {};
  return make_error(ErrorKind::usage, "sbatch: {} '{}' may only hold letters, digits and '{}'", flag,
                    one_line(value), extra_chars);
}

Result<void> check_slurm_options(const std::string& job_name, const SlurmOptions& slurm) {
  if (auto ok = check_field("--job-name", job_name, "._-"); !ok) return ok;
  if (!slurm.time.empty()) {
    if (auto ok = check_field("--time", slurm.time, ":-"); !ok) return ok;
  }
  if (!slurm.partition.empty()) {
    if (auto ok = check_field("--partition", slurm.partition, "._,-"); !ok) return ok;
  }
  return check_field("--slurm-output", slurm.output, "%._/-");
}

std::string sbatch_lines(const cluster::RankPlan& plan, const std::string& job_name,
                         const SlurmOptions& slurm, int gpus_per_node) {
  std::string lines = fmt::format("#SBATCH --job-name={}\n#SBATCH --nodes={}\n#SBATCH --ntasks-per-node=1\n",
                                  job_name, plan.nodes.size());
  if (gpus_per_node > 0) lines += fmt::format("#SBATCH --gpus-per-node={}\n", gpus_per_node);
  if (!slurm.time.empty()) lines += fmt::format("#SBATCH --time={}\n", slurm.time);
  if (!slurm.partition.empty()) lines += fmt::format("#SBATCH --partition={}\n", slurm.partition);
  lines += fmt::format("#SBATCH --output={}\n", slurm.output);
  if (slurm.pin_nodes) {
    std::vector<std::string> names;
    for (const auto& node : plan.nodes) names.push_back(node.host.name);
    lines += fmt::format("#SBATCH --nodelist={}\n", cluster::compress_hostlist(names));
  }
  return lines;
}

}  // namespace

Result<std::vector<GeneratedFile>> render_sbatch_script(const cluster::RankPlan& plan,
                                                        const GenOptions& options) {
  const SlurmOptions& slurm = options.slurm;
  if (options.command.empty()) {
    return make_error(ErrorKind::usage,
                      "sbatch: give the training command after --, e.g. -- python3 train.py");
  }
  if (auto valid = check_slurm_options(options.job_name, slurm); !valid) return valid.error();
  auto workers = uniform_workers(plan, "sbatch", "Slurm's --gpus-per-node is the same on every node");
  if (!workers) return workers.error();
  const int gpus_per_node = slurm.gpus_per_node < 0 ? *workers : slurm.gpus_per_node;

  std::string text = "#!/bin/bash\n" + generated_comment(options);
  text += fmt::format(
      "# Submit with: sbatch {0}.sbatch\n"
      "# Slurm runs this script on the first of the {1} nodes; muster launch starts {2} worker(s) on each "
      "node\n"
      "# over ssh (the first node needs passwordless ssh to the others), streams every rank's output into\n"
      "# the job's output file and stops all ranks when one fails.\n",
      options.job_name, plan.nodes.size(), *workers);
  text += sbatch_lines(plan, options.job_name, slurm, gpus_per_node);
  text += "\nset -euo pipefail\n\n";
  text += fmt::format("exec muster launch -w \"$SLURM_JOB_NODELIST\" --nproc-per-node {} -- {}\n", *workers,
                      shell_join(options.command));
  return std::vector<GeneratedFile>{{.name = options.job_name + ".sbatch", .text = text, .node_rank = -1}};
}

}  // namespace muster::gen
