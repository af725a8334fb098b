#include "gen/torchrun_command.h"

#include <regex>

namespace muster::gen {
namespace {

bool is_python(const std::string& program) {
  static const std::regex python("(.*/)?python[0-9.]*");
  return std::regex_match(program, python);
}

// The script part of the command: what follows torchrun's own flags.
std::vector<std::string> script_part(const std::vector<std::string>& command) {
  if (command.size() >= 2 && is_python(command[0])) {
    if (command[1] == "-m" && command.size() >= 3) return {command.begin() + 1, command.end()};
    if (!command[1].starts_with("-")) return {command.begin() + 1, command.end()};
  }
  std::vector<std::string> as_is = {"--no_python"};
  as_is.insert(as_is.end(), command.begin(), command.end());
  return as_is;
}

}  // namespace

std::vector<std::string> torchrun_command(const TorchrunValues& values,
                                          const std::vector<std::string>& command) {
  std::vector<std::string> argv = {"torchrun",
                                   "--nnodes=" + values.nnodes,
                                   "--node_rank=" + values.node_rank,
                                   "--master_addr=" + values.master_addr,
                                   "--master_port=" + values.master_port,
                                   "--nproc_per_node=" + values.nproc_per_node};
  auto script = script_part(command);
  argv.insert(argv.end(), script.begin(), script.end());
  return argv;
}

std::string escape_dollars(std::string_view text) {
  std::string escaped;
  for (char c : text) escaped += c == '$' ? std::string("$$") : std::string(1, c);
  return escaped;
}

std::vector<std::string> escape_dollars(const std::vector<std::string>& words) {
  std::vector<std::string> escaped;
  for (const auto& word : words) escaped.push_back(escape_dollars(word));
  return escaped;
}

}  // namespace muster::gen
