#include "gen/ssh_config.h"

#include <fmt/format.h>

#include "cluster/host_name.h"
#include "gen/node_addresses.h"
#include "gen/provenance.h"

namespace muster::gen {
namespace {

// ssh_config takes one argument per keyword; one with spaces goes in double quotes, which cannot be escaped.
Result<std::string> config_argument(std::string_view flag, const std::string& value) {
  if (value.find('"') != std::string::npos || one_line(value) != value) {
    return make_error(ErrorKind::usage, "ssh-config: {} '{}' must not hold '\"' or control characters", flag,
                      one_line(value));
  }
  if (value.find_first_of(" \t") != std::string::npos) return "\"" + value + "\"";
  return value;
}

Result<void> check_network(const cluster::RankPlan& plan, const NetworkOptions& network) {
  if (auto valid = check_addresses(plan, network, "ssh-config"); !valid) return valid;
  if (!network.user.empty()) {
    if (auto problem = cluster::check_user_name(network.user)) {
      return make_error(ErrorKind::usage, "ssh-config: --user: {}", problem->message);
    }
  }
  if (network.ssh_port != -1 && (network.ssh_port < 1 || network.ssh_port > 65535)) {
    return make_error(ErrorKind::usage, "ssh-config: --ssh-port must be from 1 to 65535, found {}",
                      network.ssh_port);
  }
  return {};
}

}  // namespace

Result<std::vector<GeneratedFile>> render_ssh_config(const cluster::RankPlan& plan,
                                                     const GenOptions& options) {
  const NetworkOptions& network = options.network;
  if (auto valid = check_network(plan, network); !valid) return valid.error();
  std::string identity;
  if (!network.identity_file.empty()) {
    auto argument = config_argument("--identity-file", network.identity_file);
    if (!argument) return argument.error();
    identity = *argument;
  }
  std::string text = generated_comment(options);
  text +=
      "# Add to ~/.ssh/config on the machine you launch from (and on every node, for node-to-node ssh).\n";
  for (const auto& node : plan.nodes) {
    std::string user = network.user.empty() ? node.host.user : network.user;
    text += fmt::format("\nHost {}\n    HostName {}\n", node.host.name,
                        node_address(node, network).value_or(node.host.name));
    if (!user.empty()) text += fmt::format("    User {}\n", user);
    if (!identity.empty()) text += fmt::format("    IdentityFile {}\n", identity);
    if (network.ssh_port > 0) text += fmt::format("    Port {}\n", network.ssh_port);
  }
  return std::vector<GeneratedFile>{{.name = "ssh_config", .text = text, .node_rank = -1}};
}

}  // namespace muster::gen
