#include "gen/nfs_share.h"

#include <fmt/format.h>

#include <algorithm>

#include "gen/node_addresses.h"
#include "gen/provenance.h"
#include "util/shell_quote.h"

namespace muster::gen {
namespace {

constexpr std::string_view kExportOptions = "rw,sync,no_subtree_check,no_root_squash";

struct Share {
  const cluster::NodePlan* server = nullptr;
  std::vector<const cluster::NodePlan*> clients;
  std::string server_address;  // as clients reach it, bracketed when IPv6
  std::string export_path, mount_path;
};

Result<void> check_path(std::string_view flag, const std::string& path) {
  bool ok = path.starts_with('/') && std::all_of(path.begin(), path.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     std::string_view("/._-").find(c) != std::string_view::npos;
            });
  if (ok) return {};
  return make_error(ErrorKind::usage, "nfs: {} '{}' must be an absolute path of letters, digits and '/._-'",
                    flag, one_line(path));
}

Result<void> check_subnet(const std::string& subnet) {
  auto slash = subnet.find('/');
  if (slash != std::string::npos && is_ip_address(subnet.substr(0, slash))) {
    std::string bits = subnet.substr(slash + 1);
    if (!bits.empty() && bits.size() <= 3 &&
        std::all_of(bits.begin(), bits.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        std::stoi(bits) <= 128) {
      return {};
    }
  }
  return make_error(ErrorKind::usage, "nfs: --subnet '{}' is not an address/prefix such as 10.0.0.0/24",
                    one_line(subnet));
}

Result<Share> plan_share(const cluster::RankPlan& plan, const GenOptions& options) {
  const NfsOptions& nfs = options.nfs;
  if (plan.nodes.size() < 2)
    return make_error(ErrorKind::usage, "nfs: needs at least two nodes, a server and a client");
  if (auto valid = check_addresses(plan, options.network, "nfs"); !valid) return valid.error();
  Share share;
  share.export_path = nfs.export_path;
  share.mount_path = nfs.mount_path.empty() ? nfs.export_path : nfs.mount_path;
  if (auto valid = check_path("--export-path", share.export_path); !valid) return valid.error();
  if (auto valid = check_path("--mount-path", share.mount_path); !valid) return valid.error();
  if (!nfs.subnet.empty()) {
    if (auto valid = check_subnet(nfs.subnet); !valid) return valid.error();
  }
  for (const auto& node : plan.nodes) {
    bool is_server = nfs.server.empty() ? node.node_rank == 0 : node.host.name == nfs.server;
    if (is_server && !share.server) {
      share.server = &node;
    } else {
      share.clients.push_back(&node);
    }
  }
  if (!share.server)
    return make_error(ErrorKind::usage, "nfs: --server '{}' is not one of the selected nodes",
                      one_line(nfs.server));
  std::string address = node_address(*share.server, options.network).value_or(share.server->host.name);
  share.server_address = address.find(':') != std::string::npos ? "[" + address + "]" : address;
  return share;
}

std::string client_list(const Share& share, const NetworkOptions& network) {
  std::string text;
  for (const auto* client : share.clients) {
    if (!text.empty()) text += ' ';
    text += fmt::format("{}({})", node_address(*client, network).value_or(client->host.name), kExportOptions);
  }
  return text;
}

std::string client_names(const Share& share) {
  std::string names;
  for (const auto* client : share.clients) names += (names.empty() ? "" : ", ") + client->host.name;
  return names;
}

GeneratedFile exports_file(const Share& share, const GenOptions& options) {
  const std::string& server = share.server->host.name;
  const std::string& path = share.export_path;
  std::string clients =
      options.nfs.subnet.empty() ? "the client nodes on the line below" : "the subnet " + options.nfs.subnet;
  std::string text = generated_comment(options);
  text += fmt::format(
      "# NFS share: {0} exports {1}; the clients ({2}) mount it at {3} (see the .mount unit).\n"
      "#\n"
      "# On {0} (the server):\n"
      "#   apt-get install -y nfs-kernel-server\n"
      "#   mkdir -p {1}\n"
      "#   cp muster.exports /etc/exports.d/muster.exports   # or append the last line to /etc/exports\n"
      "#   exportfs -ra\n"
      "#\n"
      "# The options, as the multi-node how-tos use them:\n"
      "#   rw                clients may write: checkpoints, logs and caches go to the share.\n"
      "#   sync              the server answers a write only once it is on disk: slower than async, but a\n"
      "#                     server crash cannot silently lose a checkpoint a client believes written.\n"
      "#   no_subtree_check  no check that each request's file lies inside the exported directory: avoids\n"
      "#                     stale file handles when files are renamed while open; the check only guards\n"
      "#                     exports of part of a larger file system.\n"
      "#   no_root_squash    root on a client stays root on the share, so jobs run as root can write and\n"
      "#                     chown their files. Security trade-off: whoever has root on any machine that\n"
      "#                     the export admits can read, change or chown every file in the share as root.\n"
      "#                     Use it only on a private network you trust; otherwise delete it (the default,\n"
      "#                     root_squash, maps a client's root to nobody).\n"
      "# Admitted: {4}.\n",
      server, path, client_names(share), share.mount_path, clients);
  std::string line = options.nfs.subnet.empty() ? client_list(share, options.network)
                                                : fmt::format("{}({})", options.nfs.subnet, kExportOptions);
  text += fmt::format("{} {}\n", path, line);
  return {.name = "muster.exports", .text = text, .node_rank = -1};
}

GeneratedFile mount_unit(const Share& share, const GenOptions& options) {
  std::string unit = systemd_escape_path(share.mount_path) + ".mount";
  std::string quoted_unit = shell_quote(unit);
  std::string what = share.server_address + ":" + share.export_path;
  std::string text = generated_comment(options);
  text += fmt::format(
      "# On every client ({0}):\n"
      "#   apt-get install -y nfs-common\n"
      "#   mkdir -p {1}\n"
      "#   cp {2} /etc/systemd/system/{2}   # the name must be the escaped mount path\n"
      "#   systemctl daemon-reload && systemctl enable --now {2}\n"
      "# Or, until the next reboot only: mount -t nfs {3} {1}\n"
      "[Unit]\n"
      "Description=muster NFS share {4} from {5}\n"
      "Wants=network-online.target\n"
      "After=network-online.target\n"
      "\n"
      "[Mount]\n"
      "What={3}\n"
      "Where={1}\n"
      "Type=nfs\n"
      "Options=rw,hard,_netdev\n"
      "\n"
      "[Install]\n"
      "WantedBy=remote-fs.target\n",
      client_names(share), share.mount_path, quoted_unit, what, share.export_path, share.server->host.name);
  return {.name = unit, .text = text, .node_rank = -1};
}

}  // namespace

std::string systemd_escape_path(std::string_view path) {
  while (path.starts_with('/')) path.remove_prefix(1);
  while (path.ends_with('/')) path.remove_suffix(1);
  if (path.empty()) return "-";
  std::string escaped;
  bool after_slash = false;
  for (size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == '/') {
      if (!after_slash) escaped += '-';
      after_slash = true;
      continue;
    }
    after_slash = false;
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' ||
                 c == '_' || (c == '.' && i != 0);
    escaped += plain ? std::string(1, c) : fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  }
  return escaped;
}

Result<std::vector<GeneratedFile>> render_nfs_share(const cluster::RankPlan& plan,
                                                    const GenOptions& options) {
  auto share = plan_share(plan, options);
  if (!share) return share.error();
  return std::vector<GeneratedFile>{exports_file(*share, options), mount_unit(*share, options)};
}

}  // namespace muster::gen
