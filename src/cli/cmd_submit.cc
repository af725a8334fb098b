// `muster submit [options] [sbatch options] -- cmd...`: one Slurm batch job for N nodes whose script is
// `muster launch --transport slurm ... -- cmd` (gen/sbatch_script.h renders it). The script is kept in the run
// directory (<run-dir>/<job-name>.sbatch), where the job also writes slurm-<jobid>.out and muster launch its
// rank logs and manifest.json. Options muster does not know go to sbatch as #SBATCH lines. With --wait,
// job_follow.h follows the job and the job's exit code becomes muster's.
#include <fmt/chrono.h>
#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli/exit_codes.h"
#include "cli/job_follow.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "cluster/rank_plan.h"
#include "doctor/command_runner.h"
#include "gen/sbatch_script.h"
#include "transport/transport.h"
#include "util/random.h"
#include "util/shell_quote.h"

namespace muster::cli {
namespace {

constexpr int kSbatchTimeoutMs = 60'000;

struct SubmitFlags {
  int nodes = 1;
  int workers = 1;
  std::string run_dir, job_id;
  bool wait = false, dry_run = false;
};

// Options sbatch must not get from the user: muster sets them (or they would break following the job).
const std::vector<std::string> kReserved = {"--output", "-o", "--wrap", "--parsable", "--wait", "-W", "--nodes",
                                            "-N", "--ntasks-per-node", "--job-name", "-J", "--array", "-a"};

void add_submit_flags(CLI::App& app, SubmitFlags& flags, gen::GenOptions& options) {
  app.allow_extras();  // sbatch's options
  app.add_option("-N,--nodes", flags.nodes, "nodes to allocate (default 1)")->check(CLI::Range(1, 100000));
  app.add_option("--nproc-per-node,--ntasks-per-node", flags.workers,
                 "workers per node (default 1); also Slurm's --ntasks-per-node")
      ->check(CLI::Range(1, 1024));
  app.add_option("-J,--job-name", options.job_name, "Slurm job name, and the script's name (default muster)");
  app.add_option("-t,--time", options.slurm.time, "time limit, e.g. 24:00:00 (default: the partition's)");
  app.add_option("-p,--partition", options.slurm.partition, "Slurm partition (default: the cluster's)");
  app.add_option("--gpus-per-node", options.slurm.gpus_per_node, "GPUs to allocate per node (default none)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--run-dir", flags.run_dir, "where the script, the job's output and rank logs go "
                                             "(default muster-runs/<job id>; must be visible on the first node)");
  app.add_option("--job-id", flags.job_id, "muster's job id, MUSTER_JOB_ID of the workers (default: time + random)");
  app.add_flag("--wait", flags.wait, "follow the job's output until it ends and exit with its exit code; "
                                     "Ctrl-C cancels the job");
  app.add_flag("--dry-run", flags.dry_run, "write the script and print it; submit nothing");
}

// N nodes of `workers` slots: all the renderer needs (Slurm picks the hosts).
cluster::RankPlan placeholder_plan(int nodes, int workers) {
  std::vector<cluster::NodeSlots> slots;
  for (int i = 0; i < nodes; ++i) {
    cluster::NodeSlots node{.host = {.name = fmt::format("node{}", i + 1)}, .slots = {}};
    for (int s = 0; s < workers; ++s) node.slots.push_back(s);
    slots.push_back(std::move(node));
  }
  return cluster::make_rank_plan(slots);
}

// Renders the script and writes it into the run directory; returns its path.
Result<std::string> write_script(const SubmitFlags& flags, gen::GenOptions& options, const std::string& run_dir) {
  auto self = transport::self_binary();
  if (!self) return self.error();
  options.slurm.muster = self->path;
  options.slurm.output = run_dir + "/slurm-%j.out";
  options.slurm.launch_options = {"--run-dir", run_dir, "--job-id", flags.job_id};
  auto files = gen::render_sbatch_script(placeholder_plan(flags.nodes, flags.workers), options);
  if (!files) return files.error();
  std::error_code error;
  std::filesystem::create_directories(run_dir, error);
  if (error) return make_error(ErrorKind::io, "cannot create the run directory {}: {}", run_dir, error.message());
  std::string path = run_dir + "/" + files->front().name;
  std::ofstream out(path, std::ios::binary);
  out << files->front().text;
  if (!out.flush()) return make_error(ErrorKind::io, "cannot write {}", path);
  return path;
}

// `sbatch --parsable SCRIPT` -> the Slurm job id.
Result<std::string> submit(const std::string& script) {
  auto outcome = doctor::run_commands({{"sbatch", "--parsable", script}}, kSbatchTimeoutMs).front();
  if (!outcome.succeeded()) {
    std::string why = outcome.err.empty() ? outcome.error : outcome.err;
    return make_error(ErrorKind::remote, "sbatch {} failed: {}", script, why);
  }
  std::string id = outcome.out.substr(0, outcome.out.find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789_") != std::string::npos) {
    return make_error(ErrorKind::remote, "sbatch printed no job id: '{}'", outcome.out);
  }
  return id;
}

int run(const std::vector<std::string>& args) {
  auto app = make_app("submit", "Submit one Slurm batch job that runs `muster launch` on N nodes (agents started "
                                "with srun, no ssh).\n  muster submit --nodes 4 --nproc-per-node 2 --time 1:00:00 "
                                "--wait -- python3 train.py\nOther options before -- go to sbatch as #SBATCH lines.");
  auto dashes = std::find(args.begin(), args.end(), "--");
  std::vector<std::string> own(args.begin(), dashes);
  std::vector<std::string> command(dashes == args.end() ? dashes : dashes + 1, args.end());
  SubmitFlags flags;
  gen::GenOptions options;
  options.job_name = "muster";
  options.slurm.gpus_per_node = 0;
  add_submit_flags(*app, flags, options);
  if (auto code = parse_command_line(*app, own)) return *code;
  if (command.empty()) {
    fmt::print(stderr, "muster submit: no command given (usage: muster submit [options] -- cmd args...)\n");
    return kExitUsage;
  }
  auto lines = gen::sbatch_option_lines(app->remaining(), kReserved);
  if (!lines) return report_error(lines.error());
  options.slurm.extra_lines = *lines;
  options.command = command;
  options.command_line = "muster submit " + shell_join(args);
  if (flags.job_id.empty()) flags.job_id = new_job_id();
  std::string run_dir = std::filesystem::absolute(flags.run_dir.empty() ? "muster-runs/" + flags.job_id : flags.run_dir)
                            .lexically_normal()
                            .string();
  auto script = write_script(flags, options, run_dir);
  if (!script) return report_error(script.error());
  if (flags.dry_run) {
    std::ifstream in(*script);
    fmt::print("{}", std::string(std::istreambuf_iterator<char>(in), {}));
    fmt::print(stderr, "muster submit: wrote {} (not submitted: --dry-run)\n", *script);
    return kExitOk;
  }
  auto job = submit(*script);
  if (!job) return report_error(job.error());
  fmt::print("Submitted batch job {}\n", *job);
  std::fflush(stdout);
  fmt::print(stderr, "muster: script {}; output {}/slurm-{}.out\n", *script, run_dir, *job);
  if (!flags.wait) return kExitOk;
  auto code = follow_job(*job, fmt::format("{}/slurm-{}.out", run_dir, *job));
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace

int run_submit(const std::vector<std::string>& args) { return run(args); }

}  // namespace muster::cli
