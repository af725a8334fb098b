// The [groups] table of a config file: node groups for `@name` in any hostlist (cluster/node_groups.h), as
// clush's groups.conf. Not a command's settings: each key is a group's name, each value a hostlist string or a
// list of them (joined with commas).
//
//   [groups]
//   gpu = "node[1-8]"
//   big = ["node[9-12]", "fat1"]
//
// The project's muster.toml wins over the user's config.toml for a name both define; each file's other groups
// all count. Pure.
#pragma once

#include <string>
#include <vector>

#include "cluster/node_groups.h"
#include "config/settings.h"
#include "util/result.h"

namespace muster::config {

inline constexpr const char* kGroupsTable = "groups";

// Whether a table or setting belongs to [groups] (or a table below it, which is an error: check_groups).
bool in_groups_table(const std::vector<std::string>& section);

// Every group of `file` has a valid name and a hostlist string (or a list of strings) as its value; [groups] has
// no tables below it. Errors name file:line.
Result<void> check_groups(const ConfigFile& file);

// The groups in force.
cluster::NodeGroups node_groups(const ConfigSet& config);

}  // namespace muster::config
