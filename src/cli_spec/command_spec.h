// The command line as data: what each muster command accepts, read from the CLI11 app that parses it. Man
// pages, shell completions, the project config's keys and `muster init`'s starter file are generated from
// these, so none of them is a second list of flags that can drift from the real ones. Plain data: nothing
// here parses a command line or keeps a pointer into an app.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace muster::cli_spec {

// What an option's value is, from its CLI11 type name (FILE and DIR are set with ->type_name() on options
// that name paths: config files resolve them against their own directory, completions offer files).
enum class ValueKind { flag, text, integer, number, file, directory };

struct OptionSpec {
  std::vector<std::string> short_names;  // without '-': "H"
  std::vector<std::string> long_names;   // without "--": "hostfile"
  std::string help;
  std::string group;      // CLI11's group: "Options", "Hosts", "ssh", ...
  std::string type_name;  // as help shows it: FILE, INT, TEXT (validator descriptions left out)
  ValueKind kind = ValueKind::text;
  bool repeatable = false;            // takes several values (a list)
  std::vector<std::string> choices;   // the only values it accepts (CLI::IsMember), if any
  std::string default_value;          // as CLI11 prints it: "5", "auto", "[]"; "" for none (and for flags)
  bool configurable = true;           // may come from a config file (CLI11's ->configurable(false) says no)
  std::string env;                    // the environment variable that sets it when the command line does not

  // The config key and the name used in messages: the first long name, else the first short one.
  const std::string& key() const { return long_names.empty() ? short_names.front() : long_names.front(); }
  bool takes_value() const { return kind != ValueKind::flag; }
  // Every spelling with its dashes: {"-H", "--hostfile"}.
  std::vector<std::string> spellings() const;
};

struct PositionalSpec {
  std::string name;  // as the usage shows it: DIR, COMMAND
  std::string help;
  ValueKind kind = ValueKind::text;
  bool required = false;
  bool repeatable = false;
  std::vector<std::string> choices;
};

struct CommandSpec {
  std::vector<std::string> path;  // {"launch"}, {"gen", "sbatch"}, {"setup", "ssh"}
  std::string summary;            // one line, for lists
  std::string description;        // the app's description, as `--help` prints it
  std::string footer;
  std::vector<OptionSpec> options;  // --help left out
  std::vector<PositionalSpec> positionals;
  bool takes_command = false;  // everything after the options is a command to run (`-- cmd args...`)
  bool configurable = false;   // reads muster.toml (see src/config); false for internal and meta commands
  std::vector<CommandSpec> subcommands;

  std::string name() const;  // "gen sbatch"
  const OptionSpec* find_option(const std::string& long_or_short_name) const;
  const CommandSpec* find_subcommand(const std::string& name) const;
};

// The spec of `app` and its CLI11 subcommands. `path` is the command's place in muster's tree; a subcommand's
// path is its parent's plus its name. The summary is the description's first line (callers may replace it).
// Reads each option's default from the variable it is bound to (CLI11's capture_default_str), so the app's
// own --help shows defaults afterwards: describe apps built for describing.
CommandSpec describe_app(CLI::App& app, std::vector<std::string> path);

// Every command in `commands` and below it, depth first (a command before its subcommands).
std::vector<const CommandSpec*> flatten(const std::vector<CommandSpec>& commands);

// The command at `path` in `commands`, or null.
const CommandSpec* find_command(const std::vector<CommandSpec>& commands, const std::vector<std::string>& path);

}  // namespace muster::cli_spec
