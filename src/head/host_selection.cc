#include "head/host_selection.h"

#include <algorithm>
#include <cstdlib>

#include "cluster/hostfile.h"
#include "cluster/hostlist.h"
#include "cluster/slurm_env.h"
#include "posix/file.h"
#include "util/text.h"

namespace muster::head {
namespace {

// `^FILE`: one hostlist expression per line, `#` comments allowed, joined with commas.
Result<std::string> hostlist_from_file(const std::string& path) {
  auto text = posix::read_text_file(path);
  if (!text) return text.error();
  std::string joined;
  for (auto raw : split_lines(*text)) {
    std::string line(raw.substr(0, raw.find('#')));
    std::erase_if(line, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
    if (line.empty()) continue;
    if (!joined.empty()) joined += ',';
    joined += line;
  }
  return joined;
}

Result<std::vector<cluster::Host>> hosts_from_expression(std::string expr, const cluster::NodeGroups& groups) {
  std::string what = "--hosts";
  if (expr.starts_with('^')) {
    what = expr.substr(1);
    auto joined = hostlist_from_file(what);
    if (!joined) return joined.error();
    expr = *joined;
  }
  auto plain = cluster::expand_node_groups(expr, groups, what);
  if (!plain) return plain.error();
  auto names = cluster::expand_hostlist(*plain);
  if (!names) return names.error();
  std::vector<cluster::Host> hosts;
  for (const auto& name : *names) hosts.push_back(cluster::host_from_destination(name));
  return hosts;
}

Result<std::vector<cluster::Host>> source_hosts(const HostSelection& options) {
  if (!options.hostfile.empty() && !options.hosts.empty()) {
    return make_error(ErrorKind::usage, "give either --hostfile or --hosts, not both");
  }
  if (!options.hostfile.empty()) {
    auto text = posix::read_text_file(options.hostfile);
    if (!text) return text.error();
    return cluster::parse_hostfile(*text, options.hostfile);
  }
  if (!options.hosts.empty()) return hosts_from_expression(options.hosts, options.groups);
  const char* nodelist = std::getenv("SLURM_JOB_NODELIST");
  const char* tasks = std::getenv("SLURM_TASKS_PER_NODE");
  if (nodelist && tasks) return cluster::hosts_from_slurm(nodelist, tasks);
  return std::vector<cluster::Host>{cluster::Host{.name = "localhost"}};
}

Result<std::vector<cluster::Host>> without_excluded(std::vector<cluster::Host> hosts, const std::string& given,
                                                    const cluster::NodeGroups& groups) {
  if (given.empty()) return hosts;
  auto expr = cluster::expand_node_groups(given, groups, "--exclude-hosts");
  if (!expr) return expr.error();
  std::vector<std::string> destinations;
  for (const auto& host : hosts) destinations.push_back(host.destination());
  auto kept = cluster::exclude_hosts(destinations, *expr);
  if (!kept) return kept.error();
  std::erase_if(hosts, [&](const cluster::Host& host) {
    return std::find(kept->begin(), kept->end(), host.destination()) == kept->end();
  });
  if (hosts.empty()) return make_error(ErrorKind::usage, "--exclude-hosts '{}' leaves no host", given);
  return hosts;
}

}  // namespace

Result<std::vector<cluster::NodeSlots>> resolve_hosts(const HostSelection& options) {
  auto hosts = source_hosts(options);
  if (!hosts) return hosts.error();
  auto kept = without_excluded(std::move(*hosts), options.exclude_hosts, options.groups);
  if (!kept) return kept.error();
  cluster::SlotSelection selection = options.selection;
  if (selection.nproc_per_node > 0) selection.default_slots = std::max(selection.default_slots, selection.nproc_per_node);
  return cluster::select_slots(*kept, selection);
}

bool hosts_given(const HostSelection& options) { return !options.hostfile.empty() || !options.hosts.empty(); }

}  // namespace muster::head
