#include "submit/submit.h"

#include <cstdio>

#include <fmt/core.h>

#include "cluster/rank_plan.h"
#include "gen/sbatch_script.h"
#include "posix/file.h"
#include "posix/run_commands.h"
#include "submit/job_follow.h"
#include "transport/transport.h"
#include "util/random.h"
#include "util/run_dir.h"

namespace muster::submit {
namespace {

constexpr int kSbatchTimeoutMs = 60'000;

// Options sbatch must not get from the user: muster sets them (or they would break following the job).
const std::vector<std::string> kReserved = {"--output", "-o", "--wrap", "--parsable", "--wait", "-W", "--nodes",
                                            "-N", "--ntasks-per-node", "--job-name", "-J", "--array", "-a"};

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
Result<std::string> write_script(const SubmitOptions& flags, gen::GenOptions& options, const std::string& run_dir) {
  auto self = transport::self_binary();
  if (!self) return self.error();
  options.slurm.muster = self->path;
  options.slurm.output = run_dir + "/slurm-%j.out";
  options.slurm.launch_options = {"--run-dir", run_dir, "--job-id", flags.job_id};
  auto files = gen::render_sbatch_script(placeholder_plan(flags.nodes, flags.workers), options);
  if (!files) return files.error();
  // Private, like a launch's run directory (the job's launch writes its logs here too) and the script holds the
  // user's command line.
  auto made = posix::make_dir_with_parents(run_dir, 0700);
  if (!made) return make_error(ErrorKind::io, "cannot create the run directory: {}", made.error().message);
  std::string path = run_dir + "/" + files->front().name;
  if (auto written = posix::write_file_atomic(path, files->front().text, 0600); !written) return written.error();
  return path;
}

// `sbatch --parsable SCRIPT` -> the Slurm job id.
Result<std::string> submit(const std::string& script) {
  auto outcome = posix::run_commands({{"sbatch", "--parsable", script}}, kSbatchTimeoutMs).front();
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

}  // namespace

Result<int> run_submit(SubmitOptions options) {
  auto lines = gen::sbatch_option_lines(options.sbatch_options, kReserved);
  if (!lines) return lines.error();
  gen::GenOptions& gen = options.gen;
  gen.slurm.extra_lines = *lines;
  gen.command = options.command;
  gen.command_line = options.command_line;
  if (options.job_id.empty()) options.job_id = new_job_id();
  std::string run_dir = posix::absolute_path(job_run_dir(options.run_dir, options.job_id));
  auto script = write_script(options, gen, run_dir);
  if (!script) return script.error();
  if (options.dry_run) {
    auto text = posix::read_text_file(*script);
    if (!text) return text.error();
    fmt::print("{}", *text);
    fmt::print(stderr, "muster submit: wrote {} (not submitted: --dry-run)\n", *script);
    return 0;
  }
  auto job = submit(*script);
  if (!job) return job.error();
  fmt::print("Submitted batch job {}\n", *job);
  std::fflush(stdout);
  fmt::print(stderr, "muster: script {}; output {}/slurm-{}.out\n", *script, run_dir, *job);
  if (!options.wait) return 0;
  return follow_job(*job, fmt::format("{}/slurm-{}.out", run_dir, *job));
}

}  // namespace muster::submit
