// Node groups, as clush's: `@gpu` anywhere a hostlist is taken stands for the hosts of the group `gpu`, defined
// in a config file's [groups] table (config/node_groups.h) as a hostlist, which may name other groups:
//
//   [groups]
//   gpu = "node[1-8]"
//   big = ["node[9-12]", "fat1"]
//   all = "@gpu,@big"
//
//   -w @gpu                 node1 ... node8
//   -w @all,-@big,-node3    every node of `all`, without those of `big` and node3
//   -x @big                 (in an exclude list, as any other item)
//
// expand_node_groups replaces each `@name` item (and `-@name`, which excludes the group's hosts) by the group's
// hosts, so what comes out is a plain hostlist for expand_hostlist. A group's own `-` items apply within the
// group only. Pure; errors name the group and where it was defined.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "util/result.h"

namespace muster::cluster {

struct NodeGroup {
  std::string hostlist;  // the definition (may name other groups)
  std::string source;    // where it was defined, for errors: "muster.toml:12"
};

using NodeGroups = std::map<std::string, NodeGroup>;

// Whether `name` may name a group: letters, digits, '_', '.', '-' (not first).
bool valid_group_name(std::string_view name);

// `expr` with every `@name` / `-@name` item replaced. Fails on an unknown group (with "did you mean"), a group
// that names itself (directly or through others), an invalid definition. `what` names `expr` in errors.
Result<std::string> expand_node_groups(std::string_view expr, const NodeGroups& groups,
                                       std::string_view what = "hostlist");

}  // namespace muster::cluster
