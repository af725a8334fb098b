// `muster __generate man DIR | bash | zsh`: hidden; the man pages and shell completions, rendered (src/manual)
// from the command table read as data (command_tree.h). The build runs it, so what is installed always
// matches the binary.
#include <fmt/core.h>

#include "cli/command_tree.h"
#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "manual/bash_completion.h"
#include "manual/man_page.h"
#include "manual/zsh_completion.h"
#include "posix/file.h"
#include "util/version.h"

namespace muster::cli {

int run_generate(const std::vector<std::string>& args) {
  auto app = make_app("__generate", "Internal: write the man pages (into DIR) or print a shell completion script.");
  std::string what, dir;
  app->add_option("WHAT", what, "man, bash or zsh")->required()->check(CLI::IsMember({"man", "bash", "zsh"}));
  app->add_option("DIR", dir, "where the man pages go (man)");
  if (auto code = parse_command_line(*app, args)) return *code;
  std::vector<std::string> missing;
  auto commands = describe_commands(&missing);
  if (!missing.empty()) {  // its page and completion would lack every option: see command.h
    return report_error(make_error(ErrorKind::internal, "__generate: muster {} built no CLI11 app for parse_command_line",
                                   missing.front()));
  }
  if (what == "bash") {
    fmt::print("{}", manual::render_bash_completion(commands));
  } else if (what == "zsh") {
    fmt::print("{}", manual::render_zsh_completion(commands));
  } else {
    if (dir.empty()) return report_error(make_error(ErrorKind::usage, "__generate man: no DIR given"));
    manual::ManualInfo info{
        kVersion, "multi-node training from one machine",
        "muster launches multi-node PyTorch training from one machine: it starts the job on every node over ssh, "
        "inside a Slurm allocation or locally, streams clean logs, stops every rank when one fails and leaves no "
        "process behind. It also checks the cluster (doctor), copies code to every node (sync), sets up ssh and "
        "/etc/hosts (setup) and writes the files other launchers need (gen)."};
    for (const auto& page : manual::render_man_pages(commands, info)) {
      auto written = posix::write_file_atomic(dir + "/" + page.name + ".1", page.text, 0644);
      if (!written) return report_error(written.error());
    }
  }
  return kExitOk;
}

}  // namespace muster::cli
