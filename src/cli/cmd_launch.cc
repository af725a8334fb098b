// `muster launch`: flags -> launch::LaunchRequest; the work is launch::run_launch_request.
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/launch_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "launch/launch_request.h"

namespace muster::cli {

int run_launch(const std::vector<std::string>& args) {
  auto app = make_app("launch", "Start a command on every node and slot, torchrun-compatible; stream its logs; "
                                "stop every rank when one fails.\n  muster launch -w 'node[1-4]' --nproc-per-node 2 "
                                "-- python3 train.py --lr 0.1");
  app->prefix_command();  // everything from the first non-option on is the command, untouched
  launch::LaunchRequest request;
  add_launch_flags(*app, request);
  if (auto code = parse_command_line(*app, args)) return *code;
  if (auto code = take_command(*app, request.job.command)) return *code;
  if (request.job.command.empty()) {
    fmt::print(stderr, "muster launch: no command given (usage: muster launch [options] -- cmd args...)\n");
    return kExitUsage;
  }
  auto code = launch::run_launch_request(request);
  if (!code) return report_error(code.error());
  return *code;
}

}  // namespace muster::cli
