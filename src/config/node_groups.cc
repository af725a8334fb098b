#include "config/node_groups.h"

#include <fmt/format.h>

#include "util/text.h"

namespace muster::config {

bool in_groups_table(const std::vector<std::string>& section) {
  return !section.empty() && section.front() == kGroupsTable;
}

Result<void> check_groups(const ConfigFile& file) {
  for (const Table& table : file.tables) {
    if (in_groups_table(table.section) && table.section.size() > 1) {
      return make_error(ErrorKind::usage, "{}: [{}]: [groups] holds `name = \"hostlist\"` lines, not tables",
                        table.source.text(), join(table.section, "."));
    }
  }
  for (const Setting& setting : file.settings) {
    if (!in_groups_table(setting.section)) continue;
    if (!cluster::valid_group_name(setting.key)) {
      return make_error(ErrorKind::usage,
                        "{}: [groups] '{}': a group's name is letters, digits, '_', '.' and '-' (not first)",
                        setting.source.text(), setting.key);
    }
    if (setting.type != ValueType::string || setting.values.empty()) {
      return make_error(ErrorKind::usage, "{}: [groups] {}: the value is a hostlist string, e.g. \"node[1-8]\", or a "
                        "list of them", setting.source.text(), setting.key);
    }
  }
  return {};
}

cluster::NodeGroups node_groups(const ConfigSet& config) {
  cluster::NodeGroups groups;
  for (const ConfigFile& file : config.files) {  // highest precedence first: the first definition stays
    for (const Setting& setting : file.settings) {
      if (!in_groups_table(setting.section) || setting.section.size() != 1) continue;
      groups.emplace(setting.key, cluster::NodeGroup{join(setting.values, ","), setting.source.text()});
    }
  }
  return groups;
}

}  // namespace muster::config
