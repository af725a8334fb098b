// `muster submit [options] [sbatch options] -- cmd...`: flags -> submit::SubmitOptions; the work is
// submit::run_submit (see submit/submit.h).
#include <algorithm>

#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "submit/submit.h"
#include "util/shell_quote.h"

namespace muster::cli {

int run_submit(const std::vector<std::string>& args) {
  auto app = make_app("submit", "Submit one Slurm batch job that runs `muster launch` on N nodes (agents started "
                                "with srun, no ssh).\n  muster submit --nodes 4 --nproc-per-node 2 --time 1:00:00 "
                                "--wait -- python3 train.py\nOther options before -- go to sbatch as #SBATCH lines.");
  auto dashes = std::find(args.begin(), args.end(), "--");
  std::vector<std::string> own(args.begin(), dashes);
  submit::SubmitOptions options;
  options.command.assign(dashes == args.end() ? dashes : dashes + 1, args.end());
  gen::GenOptions& gen = options.gen;
  gen.job_name = "muster";
  gen.slurm.gpus_per_node = 0;
  app->allow_extras();  // sbatch's options
  app->add_option("-N,--nodes", options.nodes, "nodes to allocate (default 1)")->check(CLI::Range(1, 100000));
  app->add_option("--nproc-per-node,--ntasks-per-node", options.workers,
                  "workers per node (default 1); also Slurm's --ntasks-per-node")
      ->check(CLI::Range(1, 1024));
  app->add_option("-J,--job-name", gen.job_name, "Slurm job name, and the script's name (default muster)");
  app->add_option("-t,--time", gen.slurm.time, "time limit, e.g. 24:00:00 (default: the partition's)");
  app->add_option("-p,--partition", gen.slurm.partition, "Slurm partition (default: the cluster's)");
  app->add_option("--signal", gen.slurm.signal, "SIG@SECONDS, e.g. USR1@90: Slurm sends SIG that long before the "
                                                "time limit; muster passes it to every rank (checkpoint, exit 0)");
  app->add_flag("--requeue", gen.slurm.requeue, "let Slurm requeue the job (after preemption or a node failure): it "
                                                "runs again with the same run directory, and resumes its checkpoint");
  app->add_option("--gpus-per-node", gen.slurm.gpus_per_node, "GPUs to allocate per node (default none)")
      ->check(CLI::Range(0, 1024));
  app->add_option("--run-dir", options.run_dir, "where the script, the job's output and rank logs go; {job_id} is replaced "
                                                "(default muster-runs/{job_id}; must be visible on the first node)")
      ->type_name("DIR");
  app->add_option("--job-id", options.job_id, "muster's job id, MUSTER_JOB_ID of the workers (default: time + random)")
      ->configurable(false);  // names one run: never from muster.toml
  app->add_flag("--wait", options.wait, "follow the job's output until it ends and exit with its exit code; "
                                        "Ctrl-C cancels the job");
  app->add_flag("--dry-run", options.dry_run, "write the script and print it; submit nothing");
  if (auto code = parse_command_line(*app, own)) return *code;
  if (options.command.empty()) {
    fmt::print(stderr, "muster submit: no command given (usage: muster submit [options] -- cmd args...)\n");
    return kExitUsage;
  }
  options.sbatch_options = app->remaining();
  options.command_line = "muster submit " + shell_join(args);
  auto code = submit::run_submit(std::move(options));
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
