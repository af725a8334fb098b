#include "gen/hostfile_gen.h"

#include "cluster/hostfile.h"
#include "gen/provenance.h"

namespace muster::gen {

std::vector<GeneratedFile> render_hostfile(const cluster::RankPlan& plan, const GenOptions& options) {
  std::vector<cluster::Host> hosts;
  for (const auto& node : plan.nodes) {
    cluster::Host host = node.host;
    host.slots = static_cast<int>(node.ranks.size());
    if (host.max_slots != -1 && host.max_slots < host.slots) host.max_slots = -1;
    hosts.push_back(host);
  }
  return {GeneratedFile{.name = "hostfile",
                        .text = generated_comment(options) + cluster::format_hostfile(hosts)}};
}

}  // namespace muster::gen
