#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "util/version.h"

namespace muster::cli {

int run_version(const std::vector<std::string>& args) {
  auto app = make_app("version", "Print muster's version.");
  if (auto code = parse_command_line(*app, args)) return *code;
  fmt::print("muster {}\n", kVersion);
  return kExitOk;
}

}  // namespace muster::cli
