#include "gen/hostfile_gen.h"

#include "cluster/hostfile.h"
#include "gen/provenance.h"

namespace muster::gen {

std::vector<GeneratedFile> render_hostfile(const cluster::RankPlan& plan, const GenOptions& options) {
  std::string text = generated_comment(options) + cluster::format_hostfile(cluster::hosts_of_plan(plan));
  return {GeneratedFile{.name = "hostfile", .text = std::move(text)}};
}

}  // namespace muster::gen
