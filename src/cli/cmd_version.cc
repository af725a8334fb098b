// `muster version` (and `muster --version`): the release and the build id, the XXH3-64 of this very executable
// that nodes' cached copies are checked against (transport/transport.h).
#include <fmt/core.h>

#include "cli/exit_codes.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "transport/transport.h"
#include "util/version.h"

namespace muster::cli {

int run_version(const std::vector<std::string>& args) {
  auto app = make_app("version", "Print muster's version and build id (the hash of this executable, which names "
                                 "its copy on the nodes: ~/.cache/muster/<build id>/).");
  if (auto code = parse_command_line(*app, args)) return *code;
  auto self = transport::self_binary();
  if (!self) return report_error(self.error());
  fmt::print("muster {} (build {})\n", kVersion, self->build_id);
  return kExitOk;
}

}  // namespace muster::cli
