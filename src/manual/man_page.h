// Man pages generated from the command definitions (cli_spec::CommandSpec): muster(1), which lists the
// commands and the config files, and muster-<command>(1) for each command, with its synopsis, description,
// options by group, subcommands (gen's kinds, setup's steps), config keys and exit status. Pure: text in,
// text out; `muster __generate man DIR` writes them and the build installs them.
#pragma once

#include <string>
#include <vector>

#include "cli_spec/command_spec.h"

namespace muster::manual {

struct ManPage {
  std::string name;  // "muster-launch": the file is <name>.1
  std::string text;  // roff (man macros)
};

struct ManualInfo {
  std::string version;      // "0.1.0"
  std::string tagline;      // muster(1)'s NAME line
  std::string description;  // muster(1)'s first paragraph
};

// muster(1) first, then one page per command in `commands`' order.
std::vector<ManPage> render_man_pages(const std::vector<cli_spec::CommandSpec>& commands, const ManualInfo& info);

// The page of one command (exposed for tests).
ManPage render_command_page(const cli_spec::CommandSpec& command, const ManualInfo& info);

// "muster-gen" for {"gen"}: the page that documents the command at `path` (subcommands are on their parent's).
std::string page_name(const std::vector<std::string>& path);

}  // namespace muster::manual
