#include "manual/bash_completion.h"

#include <fmt/core.h>

#include "util/shell_quote.h"
#include "util/text.h"

namespace muster::manual {
namespace {

using cli_spec::CommandSpec;
using cli_spec::ValueKind;

const char* kind_word(ValueKind kind) {
  switch (kind) {
    case ValueKind::file: return "file";
    case ValueKind::directory: return "dir";
    default: return "text";
  }
}

// One case of _muster_spec: what the command at `path` accepts.
std::string spec_case(const std::string& path, const std::vector<std::string>& subs, const CommandSpec* command) {
  std::vector<std::string> options{"-h", "--help"};
  std::vector<std::string> valued, positionals;
  bool takes_command = false;
  if (command) {
    for (const auto& option : command->options) {
      for (const auto& spelling : option.spellings()) {
        options.push_back(spelling);
        if (option.takes_value()) valued.push_back(spelling);
      }
    }
    for (const auto& positional : command->positionals) positionals.push_back(kind_word(positional.kind));
    takes_command = command->takes_command;
  } else {
    options.push_back("--version");
  }
  return fmt::format("    {})\n      _m_subs={}\n      _m_opts={}\n      _m_vals={}\n      _m_pos={}\n      _m_cmd={} ;;\n",
                     shell_quote(path), shell_quote(join(subs, " ")), shell_quote(join(options, " ")),
                     shell_quote(join(valued, " ")), shell_quote(join(positionals, " ")), takes_command ? 1 : 0);
}

// Cases of _muster_value: how to complete the value of each option that takes one.
std::string value_cases(const CommandSpec& command) {
  std::string out;
  for (const auto& option : command.options) {
    std::string action;
    if (!option.choices.empty()) {
      action = fmt::format("COMPREPLY=($(compgen -W {} -- \"$3\"))", shell_quote(join(option.choices, " ")));
    } else if (option.kind == ValueKind::file) {
      action = "_muster_files -f \"$3\"";
    } else if (option.kind == ValueKind::directory) {
      action = "_muster_files -d \"$3\"";
    } else {
      continue;  // free text: nothing to offer
    }
    std::string patterns;
    for (const auto& spelling : option.spellings()) {
      patterns += (patterns.empty() ? "" : "|") + shell_quote(command.name() + " " + spelling);
    }
    out += fmt::format("    {}) {} ;;\n", patterns, action);
  }
  return out;
}

void add_cases(const CommandSpec& command, std::string& specs, std::string& values) {
  std::vector<std::string> subs;
  for (const auto& sub : command.subcommands) subs.push_back(sub.path.back());
  specs += spec_case(command.name(), subs, &command);
  values += value_cases(command);
  for (const auto& sub : command.subcommands) add_cases(sub, specs, values);
}

constexpr const char* kDriver = R"(
_muster_files() {  # $1: -f (files) or -d (directories), $2: the word so far
  local IFS=$'\n'
  COMPREPLY=($(compgen "$1" -- "$2"))
  compopt -o filenames 2>/dev/null
}

# The command to run, from word $1 on (after `--` or the first word that is not an option).
_muster_command() {
  if declare -F _command_offset >/dev/null; then  # bash-completion: complete that command's own arguments
    _command_offset "$1"
  elif (($1 == COMP_CWORD)); then
    COMPREPLY=($(compgen -c -- "${COMP_WORDS[COMP_CWORD]}"))
  else
    _muster_files -f "${COMP_WORDS[COMP_CWORD]}"
  fi
}

_muster() {
  local cur=${COMP_WORDS[COMP_CWORD]} path='' word i=1 npos=0 dashes=0
  local _m_subs _m_opts _m_vals _m_pos _m_cmd
  _muster_spec ''
  COMPREPLY=()
  while ((i < COMP_CWORD)); do
    word=${COMP_WORDS[i]}
    if ((!dashes)) && [[ $word == -- ]]; then
      if ((_m_cmd)); then _muster_command $((i + 1)); return; fi
      dashes=1
    elif ((!dashes)) && [[ $word == -?* ]]; then
      if [[ " $_m_vals " == *" $word "* ]]; then  # its value is the next word ('=' is a word of its own)
        [[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))
        if ((i + 1 == COMP_CWORD)); then _muster_value "$path" "$word" "$cur"; return; fi
        ((i++))
      fi
    elif ((npos == 0)) && [[ -n $_m_subs && " $_m_subs " == *" $word "* ]]; then
      path=${path:+$path }$word
      _muster_spec "$path"
    elif ((_m_cmd)); then
      _muster_command "$i"
      return
    else
      ((npos++))
    fi
    ((i++))
  done
  if ((!dashes)) && [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$_m_opts" -- "$cur"))
  elif ((npos == 0)) && [[ -n $_m_subs ]]; then
    COMPREPLY=($(compgen -W "$_m_subs" -- "$cur"))
  else
    local kinds=($_m_pos) kind=text
    ((${#kinds[@]})) && kind=${kinds[npos]:-${kinds[${#kinds[@]} - 1]}}
    case $kind in
      file) _muster_files -f "$cur" ;;
      dir) _muster_files -d "$cur" ;;
      *) ((_m_cmd)) && _muster_command "$COMP_CWORD" ;;
    esac
  fi
}

complete -F _muster muster
)";

}  // namespace

std::string render_bash_completion(const std::vector<CommandSpec>& commands) {
  std::vector<std::string> names;
  for (const auto& command : commands) names.push_back(command.path.front());
  std::string specs = spec_case("", names, nullptr);
  std::string values;
  for (const auto& command : commands) add_cases(command, specs, values);
  return "# bash completion for muster: generated by `muster __generate bash` from muster's command definitions.\n"
         "# Do not edit; every option of every command is here because the program listed it.\n\n"
         "# What the command at path $1 accepts: subcommands, options, options that take a value, positional\n"
         "# arguments (file, dir, text), and whether a command to run follows the options.\n"
         "_muster_spec() {\n  case $1 in\n" +
         specs +
         "  esac\n}\n\n# The value of option $2 of the command at path $1, from the word so far $3.\n"
         "_muster_value() {\n  case \"$1 $2\" in\n" +
         values + "  esac\n}\n" + kDriver;
}

}  // namespace muster::manual
