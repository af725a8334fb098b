#include "cli/project_config.h"

#include <fmt/core.h>

#include "cli/command_tree.h"
#include "cli/exit_codes.h"
#include "config/apply.h"
#include "config/check.h"
#include "config/config_files.h"
#include "config/node_groups.h"
#include "config/trust.h"
#include "posix/file.h"

namespace muster::cli {
namespace {

Result<config::ConfigSet> load_and_check() {
  auto set = config::load_config(config::default_locations(), posix::effective_uid());
  if (!set) return set;
  for (const auto& warning : set->warnings) fmt::print(stderr, "muster: warning: {}\n", warning);
  if (set->empty()) return set;
  auto commands = describe_commands();
  for (const auto& file : set->files) {
    if (auto checked = config::check_config_file(file, commands); !checked) return checked.error();
  }
  return set;
}

}  // namespace

const config::ConfigSet* checked_project_config() {
  static const Result<config::ConfigSet> loaded = load_and_check();
  static bool reported = false;
  if (loaded) return &*loaded;
  if (!reported) report_error(loaded.error());
  reported = true;
  return nullptr;
}

cluster::NodeGroups configured_node_groups() {
  const config::ConfigSet* set = checked_project_config();
  return set ? config::node_groups(*set) : cluster::NodeGroups{};
}

bool reads_config(const CLI::App& app) {
  auto path = app_path(app);
  if (path.empty()) return false;
  for (const Command& command : all_commands()) {
    if (path.front() == command.name) return !command.hidden && command.reads_config;
  }
  return false;
}

std::optional<int> apply_project_config(CLI::App& app) {
  if (!reads_config(app)) return std::nullopt;
  const config::ConfigSet* set = checked_project_config();
  if (!set) return kExitUsage;
  if (set->empty()) return std::nullopt;
  auto applied = config::apply_config(app, app_path(app), *set, posix::home_directory());
  if (!applied) return report_error(applied.error());
  if (auto allowed = config::check_allowed(*applied, *set); !allowed) return report_error(allowed.error());
  if (auto note = config::project_settings_note(*applied, *set); !note.empty()) {
    fmt::print(stderr, "muster: {}\n", note);
  }
  return std::nullopt;
}

}  // namespace muster::cli
