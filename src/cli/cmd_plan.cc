// `muster plan`: prints which ranks would run where, without touching any node. The pure half of launch.
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "cluster/hostfile.h"
#include "cluster/hostlist.h"
#include "cluster/rank_plan.h"
#include "launch/launch_request.h"

namespace muster::cli {

int run_plan(const std::vector<std::string>& args) {
  auto app = make_app("plan", "Print the rank plan: which global/local ranks run on which node.");
  head::HostSelection hosts;
  add_host_options(*app, hosts);
  bool as_hostfile = false;
  app->add_flag("--hostfile-out", as_hostfile, "print the selection as a DeepSpeed hostfile instead");
  std::string nnodes;
  app->add_option("--nnodes", nnodes, "N or MIN:MAX, as `muster launch`: the plan of the first N hosts; the rest "
                                      "are listed as spares");
  if (auto code = parse_command_line(*app, args)) return *code;

  auto nodes = head::resolve_hosts(hosts);
  if (!nodes) return report_error(nodes.error());
  std::vector<cluster::NodeSlots> spares;
  int minimum = 0;
  if (!nnodes.empty()) {
    auto counts = launch::parse_nnodes(nnodes, nodes->size());
    if (!counts) return report_error(counts.error());
    minimum = counts->first;
    spares.assign(nodes->begin() + counts->second, nodes->end());
    nodes->resize(static_cast<size_t>(counts->second));
  }
  auto plan = cluster::make_rank_plan(*nodes);
  fmt::print("{}", as_hostfile ? cluster::format_hostfile(cluster::hosts_of_plan(plan))
                                : cluster::format_rank_plan(plan));
  if (!as_hostfile && !spares.empty()) {
    std::vector<std::string> names;
    for (const auto& spare : spares) names.push_back(spare.host.name);
    fmt::print("spares: {} (they take the place of a node left out; the job shrinks to no fewer than {} nodes)\n",
               cluster::compress_hostlist(names), minimum);
  }
  return kExitOk;
}

}  // namespace muster::cli
