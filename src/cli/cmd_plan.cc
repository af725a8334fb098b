// `muster plan`: prints which ranks would run where, without touching any node. The pure half of launch.
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "cluster/hostfile.h"
#include "cluster/rank_plan.h"

namespace muster::cli {

int run_plan(const std::vector<std::string>& args) {
  auto app = make_app("plan", "Print the rank plan: which global/local ranks run on which node.");
  head::HostSelection hosts;
  add_host_options(*app, hosts);
  bool as_hostfile = false;
  app->add_flag("--hostfile-out", as_hostfile, "print the selection as a DeepSpeed hostfile instead");
  if (auto code = parse_command_line(*app, args)) return *code;

  auto nodes = head::resolve_hosts(hosts);
  if (!nodes) return report_error(nodes.error());
  auto plan = cluster::make_rank_plan(*nodes);
  fmt::print("{}", as_hostfile ? cluster::format_hostfile(cluster::hosts_of_plan(plan))
                                : cluster::format_rank_plan(plan));
  return kExitOk;
}

}  // namespace muster::cli
