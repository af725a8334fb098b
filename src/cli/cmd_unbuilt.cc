// Subcommands whose issue has not landed yet. They say so and exit with kExitUnsupported: no fake output.
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/subcommands.h"

namespace muster::cli {
namespace {

int not_built(const char* name, const char* tracking, const std::vector<std::string>& args) {
  bool help = !args.empty() && (args[0] == "--help" || args[0] == "-h");
  fmt::print(help ? stdout : stderr,
             "muster {}: not built yet ({}).\nThis build of muster cannot do this; nothing was done.\n", name,
             tracking);
  return help ? kExitOk : kExitUnsupported;
}

}  // namespace

int run_sync(const std::vector<std::string>& args) { return not_built("sync", "sync issue", args); }

}  // namespace muster::cli
