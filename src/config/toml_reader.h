// A config file's text (TOML, read with toml++) into settings: each table is a command section ([launch],
// [gen.sbatch]), each key an option's long name, each value a string, number, boolean or a list of them.
// Malformed TOML, a date, a list of tables or a list inside a list is an ErrorKind::usage error naming
// file:line:column. Which sections and keys exist is check.h's business. Pure.
#pragma once

#include <string>
#include <string_view>

#include "config/settings.h"
#include "util/result.h"

namespace muster::config {

Result<ConfigFile> parse_config_text(std::string_view text, const std::string& path, const std::string& role);

// `value` as a TOML string literal ("..." with escapes), for files muster writes and settings it shows.
std::string toml_quote(std::string_view value);

}  // namespace muster::config
