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
  if (!slurm.signal.empty()) {
    auto at = slurm.signal.find('@');
    bool well_formed = at != std::string::npos && at > 0 && at + 1 < slurm.signal.size() &&
                       slurm.signal.find_first_not_of("0123456789", at + 1) == std::string::npos;
    if (!well_formed) {
      return make_error(ErrorKind::usage, "--signal {}: give SIG@SECONDS, e.g. USR1@90 (SIGUSR1 90 s before the time "
                                          "limit)", one_line(slurm.signal));
    }
    if (auto ok = check_field("--signal", slurm.signal, "@"); !ok) return ok;
  }
  return check_field("--slurm-output", slurm.output, "%._/-+,:@~=");
}

// A word sbatch reads back unchanged from a #SBATCH line.
bool plain_word(std::string_view word) {
  return !word.empty() && std::none_of(word.begin(), word.end(), [](char c) {
    return static_cast<unsigned char>(c) <= ' ' || c == '"' || c == '\'' || c == '\\' || c == 0x7f;
  });
}

std::string sbatch_lines(const cluster::RankPlan& plan, const std::string& job_name,
                         const SlurmOptions& slurm, int workers, int gpus_per_node) {
  std::string lines = fmt::format("#SBATCH --job-name={}\n#SBATCH --nodes={}\n#SBATCH --ntasks-per-node={}\n",
                                  job_name, plan.nodes.size(), workers);
  if (gpus_per_node > 0) lines += fmt::format("#SBATCH --gpus-per-node={}\n", gpus_per_node);
  if (!slurm.time.empty()) lines += fmt::format("#SBATCH --time={}\n", slurm.time);
  if (!slurm.partition.empty()) lines += fmt::format("#SBATCH --partition={}\n", slurm.partition);
  lines += fmt::format("#SBATCH --output={}\n", slurm.output);
  // B: the batch shell only, which is the muster head (exec): it passes the signal to every rank itself.
  if (!slurm.signal.empty()) lines += fmt::format("#SBATCH --signal=B:{}\n", slurm.signal);
  if (slurm.requeue) lines += "#SBATCH --requeue\n";
  if (slurm.pin_nodes) {
    std::vector<std::string> names;
    for (const auto& node : plan.nodes) names.push_back(node.host.name);
    lines += fmt::format("#SBATCH --nodelist={}\n", cluster::compress_hostlist(names));
  }
  for (const auto& line : slurm.extra_lines) lines += "#SBATCH " + line + "\n";
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

  for (const auto& line : slurm.extra_lines) {
    bool readable = line.starts_with('-') && std::all_of(line.begin(), line.end(), [](char c) {
      return c == ' ' || plain_word(std::string_view(&c, 1));
    });
    if (!readable) return make_error(ErrorKind::usage, "sbatch: cannot write '{}' as a #SBATCH line", one_line(line));
  }

  std::string text = "#!/bin/bash\n" + generated_comment(options);
  text += fmt::format(
      "# Submit with: sbatch {0}.sbatch\n"
      "# Slurm runs this script on the first of the {1} nodes; muster launch starts one agent per node with\n"
      "# srun (no ssh needed) and {2} worker(s) under each, streams every rank's output into the job's output\n"
      "# file and stops all ranks when one fails.\n",
      options.job_name, plan.nodes.size(), *workers);
  text += sbatch_lines(plan, options.job_name, slurm, *workers, gpus_per_node);
  text += "\nset -euo pipefail\n\n";
  std::vector<std::string> launch = {slurm.muster, "launch", "--transport", "slurm", "--nproc-per-node",
                                     std::to_string(*workers)};
  launch.insert(launch.end(), slurm.launch_options.begin(), slurm.launch_options.end());
  launch.emplace_back("--");
  launch.insert(launch.end(), options.command.begin(), options.command.end());
  text += "exec " + shell_join(launch) + "\n";
  return std::vector<GeneratedFile>{{.name = options.job_name + ".sbatch", .text = text, .node_rank = -1}};
}

namespace {

bool reserved_option(const std::string& word, const std::vector<std::string>& reserved) {
  std::string name = word.substr(0, word.find('='));
  return std::find(reserved.begin(), reserved.end(), name) != reserved.end();
}

}  // namespace

Result<std::vector<std::string>> sbatch_option_lines(const std::vector<std::string>& words,
                                                     const std::vector<std::string>& reserved) {
  std::vector<std::string> lines;
  for (const auto& word : words) {
    if (!plain_word(word)) {
      return make_error(ErrorKind::usage,
                        "sbatch option '{}': a #SBATCH line cannot hold spaces, quotes or backslashes; give sbatch "
                        "such values in a file (e.g. --export-file) or set them in the environment",
                        one_line(word));
    }
    if (word.starts_with('-')) {
      if (reserved_option(word, reserved)) {
        return make_error(ErrorKind::usage, "sbatch option '{}': muster submit sets it itself", word);
      }
      lines.push_back(word);
    } else if (lines.empty()) {
      return make_error(ErrorKind::usage, "'{}' is no sbatch option (the command goes after --)", word);
    } else {
      lines.back() += " " + word;
    }
  }
  return lines;
}

}  // namespace muster::gen
