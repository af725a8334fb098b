#include "manual/man_page.h"

#include <algorithm>

#include <fmt/core.h>

#include "manual/roff.h"
#include "util/text.h"

namespace muster::manual {
namespace {

using cli_spec::CommandSpec;
using cli_spec::OptionSpec;
using cli_spec::PositionalSpec;
using cli_spec::ValueKind;

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  return text;
}

std::string header(const std::string& name, const ManualInfo& info) {
  return fmt::format(".TH {} 1 \"\" \"muster {}\" \"muster manual\"\n", roff_escape(upper(name)),
                     roff_escape(info.version));
}

// Description text: a line indented by two spaces is an example (kept as is), every other line a paragraph.
std::string paragraphs(const std::string& text) {
  std::string out;
  bool in_example = false;
  for (std::string_view line : split_lines(text)) {
    bool example = line.starts_with("  ");
    if (example && !in_example) out += ".PP\n.RS 4\n.nf\n";
    if (!example && in_example) out += ".fi\n.RE\n";
    in_example = example;
    if (example) {
      out += roff_escape(trim(line)) + "\n";
    } else if (!trim(line).empty()) {
      out += ".PP\n" + roff_escape(trim(line)) + "\n";
    }
  }
  if (in_example) out += ".fi\n.RE\n";
  return out;
}

std::string positional_usage(const PositionalSpec& positional) {
  std::string usage = roff_italic(positional.name) + (positional.repeatable ? "..." : "");
  return positional.required ? usage : "[" + usage + "]";
}

std::string synopsis_line(const CommandSpec& command) {
  std::string line = ".B " + roff_escape("muster " + command.name()) + "\n";
  std::string args;
  if (!command.options.empty()) args += "[" + roff_italic("options") + "]";
  for (const auto& positional : command.positionals) args += " " + positional_usage(positional);
  if (command.takes_command) args += " [" + roff_bold("--") + "] " + roff_italic("COMMAND") + " [" + roff_italic("ARG") + "...]";
  if (!command.subcommands.empty()) args = roff_italic("SUBCOMMAND") + " [" + roff_italic("options") + "]";
  return line + std::string(trim(args)) + "\n";
}

std::string option_entry(const OptionSpec& option) {
  std::string names;
  for (const auto& spelling : option.spellings()) names += (names.empty() ? "" : ", ") + roff_bold(spelling);
  if (option.takes_value()) names += " " + roff_italic(option.type_name.empty() ? "VALUE" : option.type_name);
  std::string help = roff_escape(option.help);
  auto sentence = [&](const std::string& text) {
    if (!help.empty() && help.back() != '.') help += ".";
    help += (help.empty() ? "" : " ") + text;
  };
  if (!option.choices.empty()) {
    std::string list;
    for (const auto& choice : option.choices) list += (list.empty() ? "" : ", ") + roff_bold(choice);
    sentence("One of: " + list + ".");
  }
  if (option.repeatable && option.help.find("repeat") == std::string::npos) sentence("Repeatable.");
  if (!option.env.empty()) sentence("Environment: " + roff_bold(option.env) + " (over config files; the command line wins).");
  return ".TP\n" + names + "\n" + help + "\n";
}

std::string options_section(const CommandSpec& command, const char* heading_macro) {
  std::vector<std::string> groups;
  for (const auto& option : command.options) {
    if (std::find(groups.begin(), groups.end(), option.group) == groups.end()) groups.push_back(option.group);
  }
  std::string out;
  for (const auto& positional : command.positionals) {
    out += ".TP\n" + roff_italic(positional.name) + "\n" + roff_escape(positional.help) + "\n";
  }
  for (const auto& group : groups) {
    if (groups.size() > 1) out += std::string(heading_macro) + " " + roff_escape(group) + "\n";
    for (const auto& option : command.options) {
      if (option.group == group) out += option_entry(option);
    }
  }
  return out;
}

std::string config_sample(const OptionSpec& option) {
  switch (option.kind) {
    case ValueKind::flag: return "true";
    case ValueKind::integer: return "1";
    case ValueKind::number: return "1.5";
    default: break;
  }
  std::string value = "\"" + (option.type_name.empty() ? std::string("VALUE") : option.type_name) + "\"";
  return option.repeatable ? "[" + value + ", ...]" : value;
}

std::string section_name(const CommandSpec& command) {
  std::string name;
  for (const auto& part : command.path) name += (name.empty() ? "" : ".") + part;
  return name;
}

std::string configuration_section(const CommandSpec& command) {
  const CommandSpec* sample = &command;
  if (sample->options.empty() && !sample->subcommands.empty()) sample = &sample->subcommands.front();
  if (sample->options.empty()) return "";
  std::string out = ".SH CONFIGURATION\n.PP\n" +
                    roff_escape(fmt::format(
                        "Every option can also be set in a muster.toml file (in the working directory or the nearest "
                        "parent directory that has one) or in ~/.config/muster/config.toml, under its long name "
                        "without the dashes: in a [{}] table for this command only, or at the top level for every "
                        "command that has the option. Options given on the command line win. 'muster config {}' "
                        "shows each value and where it comes from; see muster-config(1).",
                        section_name(*sample), sample->name())) +
                    "\n.PP\n.RS 4\n.nf\n" + roff_escape("[" + section_name(*sample) + "]") + "\n";
  size_t shown = 0;
  for (const auto& option : sample->options) {
    if (option.long_names.empty() || shown == 3) continue;
    out += roff_escape(option.key() + " = " + config_sample(option)) + "\n";
    ++shown;
  }
  return out + ".fi\n.RE\n";
}

std::string subcommands_section(const CommandSpec& command) {
  if (command.subcommands.empty()) return "";
  std::string out = ".SH SUBCOMMANDS\n";
  for (const auto& sub : command.subcommands) {
    out += ".SS " + roff_escape("muster " + sub.name()) + "\n";
    out += paragraphs(sub.description.empty() ? sub.summary : sub.description);
    out += options_section(sub, ".PP\n.B");
  }
  return out;
}

std::string footer_section(const CommandSpec& command) {
  std::string footer = command.footer;
  if (footer.empty() && !command.subcommands.empty()) footer = command.subcommands.front().footer;
  if (footer.empty()) return "";
  return ".SH EXIT STATUS\n" + paragraphs(footer);
}

}  // namespace

std::string page_name(const std::vector<std::string>& path) {
  return path.empty() ? "muster" : "muster-" + path.front();
}

ManPage render_command_page(const CommandSpec& command, const ManualInfo& info) {
  ManPage page{page_name(command.path), ""};
  std::string& out = page.text;
  out += header(page.name, info);
  out += ".SH NAME\n" + roff_escape(page.name) + " \\- " + roff_escape(command.summary) + "\n";
  out += ".SH SYNOPSIS\n";
  if (command.subcommands.empty()) {
    out += synopsis_line(command);
  } else {
    for (const auto& sub : command.subcommands) out += synopsis_line(sub) + (&sub == &command.subcommands.back() ? "" : ".br\n");
  }
  out += ".SH DESCRIPTION\n" + paragraphs(command.description.empty() ? command.summary : command.description);
  if (!command.options.empty() || !command.positionals.empty()) {
    out += ".SH OPTIONS\n" + options_section(command, ".SS");
  }
  out += subcommands_section(command);
  if (command.configurable) out += configuration_section(command);
  out += footer_section(command);
  out += ".SH SEE ALSO\n" + roff_bold("muster") + "(1)";
  if (command.configurable) out += ", " + roff_bold("muster-config") + "(1)";
  out += "\n";
  return page;
}

std::vector<ManPage> render_man_pages(const std::vector<CommandSpec>& commands, const ManualInfo& info) {
  std::vector<ManPage> pages;
  ManPage main{"muster", header("muster", info)};
  std::string& out = main.text;
  out += ".SH NAME\nmuster \\- " + roff_escape(info.tagline) + "\n";
  out += ".SH SYNOPSIS\n.B muster\n" + roff_italic("COMMAND") + " [" + roff_italic("options") + "] [" +
         roff_bold("--") + " " + roff_italic("COMMAND") + " [" + roff_italic("ARG") + "...]]\n.br\n.B muster\n" +
         roff_bold("--version") + "\n";
  out += ".SH DESCRIPTION\n" + paragraphs(info.description);
  out += ".SH COMMANDS\n";
  for (const auto& command : commands) {
    out += ".TP\n" + roff_bold(page_name(command.path)) + "(1)\n" + roff_escape(command.summary) + "\n";
  }
  out += ".SH FILES\n.TP\n" + roff_italic("muster.toml") + "\n" +
         roff_escape("Project settings, read from the working directory or the nearest parent directory that has one. "
                     "Used only if it belongs to you or root and is not writable by everyone.") +
         "\n.TP\n" + roff_italic("$XDG_CONFIG_HOME/muster/config.toml") + " (" +
         roff_italic("~/.config/muster/config.toml") + ")\n" +
         roff_escape("Your settings, below the project's. Keys are the commands' long option names: at the top level "
                     "for every command that has the option, in [launch], [sync], [gen.sbatch], ... for one command. "
                     "Options on the command line win. See muster-config(1) and muster-init(1).") +
         "\n";
  if (!commands.empty()) out += footer_section(commands.front());
  out += ".SH SEE ALSO\n";
  for (const auto& command : commands) {
    out += roff_bold(page_name(command.path)) + "(1)" + (&command == &commands.back() ? "\n" : ",\n");
  }
  pages.push_back(std::move(main));
  for (const auto& command : commands) pages.push_back(render_command_page(command, info));
  return pages;
}

}  // namespace muster::manual
