// `muster gen <kind>`: renders a file the multi-node how-tos have users write by hand (hostfile, accelerate
// configs, ds_config, sbatch script, ssh config, /etc/hosts, NFS, compose, PyTorchJob) from the selected
// hosts and the kind's flags, to stdout or -o. The kinds and their flags are src/gen's (gen/gen_kinds.h); this
// file binds them to the command line, with the host and output options every kind has.
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "cluster/rank_plan.h"
#include "gen/gen_kinds.h"
#include "gen/gen_output.h"

namespace muster::cli {
namespace {

// The flags every kind has: where the hosts come from and where the output goes.
struct GenFlags {
  head::HostSelection hosts;
  std::string output;
  int node_rank = -1;
};

// A kind's own flags as CLI11 options.
class CliFlags : public gen::FlagVisitor {
 public:
  explicit CliFlags(CLI::App& app) : app_(app) {}
  void text(std::string& value, const char* names, const char* help) override {
    app_.add_option(names, value, help);
  }
  void choice(std::string& value, const char* names, const char* help, std::vector<std::string> choices) override {
    app_.add_option(names, value, help)->check(CLI::IsMember(choices));
  }
  void texts(std::vector<std::string>& value, const char* names, const char* help, char delimiter) override {
    auto* option = app_.add_option(names, value, help);
    if (delimiter != '\0') option->delimiter(delimiter);
  }
  void number(int& value, const char* names, const char* help, int min, int max) override {
    app_.add_option(names, value, help)->check(CLI::Range(min, max));
  }
  void real(double& value, const char* names, const char* help, double min, double max) override {
    app_.add_option(names, value, help)->check(CLI::Range(min, max));
  }
  void flag(bool& value, const char* names, const char* help) override { app_.add_flag(names, value, help); }

 private:
  CLI::App& app_;
};

// The kind's flags: hosts, output, and its own, which fill `flags` and `request` when parsed.
std::unique_ptr<CLI::App> make_kind_app(const gen::GenKind& kind, GenFlags& flags, gen::GenRequest& request) {
  auto app = make_app(std::string("gen ") + kind.name, fmt::format("{}.\n  {}", kind.summary, kind.example));
  if (kind.takes_command) app->prefix_command();  // the training command after `--` is kept as given
  add_host_options(*app, flags.hosts);
  app->add_option(
         "-o,--output", flags.output,
         kind.per_node ? "output file, or directory for one file per node" : "output file (default: stdout)")
      ->type_name("FILE")
      ->group("Output");
  if (kind.per_node) {
    app->add_option("--node-rank", flags.node_rank, "only this node's file")
        ->group("Output")
        ->check(CLI::NonNegativeNumber);
  }
  CliFlags own(*app);
  kind.flags(own, request);
  return app;
}

int run_kind(const gen::GenKind& kind, const std::vector<std::string>& args) {
  GenFlags flags;
  gen::GenRequest request;
  auto app = make_kind_app(kind, flags, request);
  std::vector<std::string> kind_args(args.begin() + 1, args.end());
  if (auto code = parse_command_line(*app, kind_args)) return *code;

  if (auto code = take_command(*app, request.options.command)) return *code;
  if (auto finished = gen::finish_request(request, args); !finished) return report_error(finished.error());
  auto nodes = head::resolve_hosts(flags.hosts);
  if (!nodes) return report_error(nodes.error());
  cluster::RankPlan plan = cluster::make_rank_plan(*nodes);
  auto files = kind.render(plan, request.options);
  if (!files) return report_error(files.error());
  gen::OutputChoice choice{flags.output, flags.node_rank, kind.per_node, kind.yaml};
  if (auto emitted = gen::emit_generated(std::move(*files), choice, plan.nodes.size()); !emitted) {
    return report_error(emitted.error());
  }
  return kExitOk;
}

}  // namespace

int run_gen(const std::vector<std::string>& args) {
  if (args.empty()) {
    fmt::print(stderr, "{}", gen::gen_kinds_usage());
    return kExitUsage;
  }
  if (args[0] == "-h" || args[0] == "--help") {
    if (describing_commands()) {  // man pages, completions, config keys: every kind's app
      for (const auto& kind : gen::gen_kinds()) run_kind(kind, {kind.name, "--help"});
      return kExitOk;
    }
    fmt::print("{}", gen::gen_kinds_usage());
    return kExitOk;
  }
  if (const gen::GenKind* kind = gen::find_gen_kind(args[0])) return run_kind(*kind, args);
  fmt::print(stderr, "{}", gen::unknown_gen_kind(args[0]));
  return kExitUsage;
}

}  // namespace muster::cli
