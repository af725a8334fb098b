// Whether a config file means something to muster, against the command definitions (cli_spec): every table
// names a command that reads config ([launch], [gen.sbatch]; [gen] and [setup] for all their subcommands), and
// every key is the long name of an option of a command at or below its table (the top level: any command). A
// key whose commands take different kinds of value (a list in one, a single value or a flag in another, like
// `exclude` of launch and of sync) must move into one command's table. Errors name file:line and the key, with
// "did you mean" for a near miss. An option marked ->configurable(false) (CLI11) has no key. Values are checked
// when applied (apply.h). The [groups] table is node groups, checked by node_groups.h. Pure.
#pragma once

#include <vector>

#include "cli_spec/command_spec.h"
#include "config/settings.h"
#include "util/result.h"

namespace muster::config {

Result<void> check_config_file(const ConfigFile& file, const std::vector<cli_spec::CommandSpec>& commands);

// The commands a setting in `section` reaches: the command at `section` and every command below it (all
// commands for the top level), those that read config only.
std::vector<const cli_spec::CommandSpec*> commands_in_section(const std::vector<cli_spec::CommandSpec>& commands,
                                                               const std::vector<std::string>& section);

// Whether `key` at the top level reaches options that take the same kind of value everywhere (see above).
bool same_meaning_everywhere(const std::vector<cli_spec::CommandSpec>& commands, const std::string& key);

}  // namespace muster::config
