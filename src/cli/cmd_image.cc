// `muster image push IMAGE`: flags -> image::PushOptions; the work is image::run_image_push.
#include "cli/data_path_flags.h"
#include "cli/exit_codes.h"
#include "cli/host_flags.h"
#include "cli/parse.h"
#include "cli/subcommands.h"
#include "image/push.h"

namespace muster::cli {

int run_image(const std::vector<std::string>& args) {
  auto app = make_app("image", "Container images on the nodes.");
  app->require_subcommand(1);
  image::PushOptions options;
  auto* push = app->add_subcommand(
      "push", "Copy a local image to every node that lacks it (save, send once through a relay chain, verify, "
              "load); nodes that hold the same image id are skipped.\n  muster image push nvcr.io/nvidia/"
              "pytorch:24.05-py3 -w 'node[1-8]'");
  push->add_option("IMAGE", options.image, "the image, as this machine's podman or docker names it")->required();
  push->add_option("--container-runtime", options.runtime,
                   "podman or docker on the nodes (default: podman if installed, else docker; each node its "
                   "own); here, whichever holds IMAGE, this one first")
      ->check(CLI::IsMember({"podman", "docker"}));
  push->add_option("--stage", options.stage,
                   "absolute directory on the nodes for the archive while it loads (default: the same path as here, "
                   "~/.cache/muster/images)");
  push->add_option("--fanout", options.fanout, "as muster sync's: auto, chain, star")
      ->check(CLI::IsMember({"auto", "chain", "star"}))
      ->capture_default_str();
  push->add_flag("-q,--quiet", options.quiet, "no progress notices");
  add_data_path_options(*push, options.data);
  add_connect_options(*push, options.connect, false);
  if (auto code = parse_command_line(*app, args)) return *code;
  if (!options.stage.empty() && options.stage.front() != '/') {
    return report_error(make_error(ErrorKind::usage, "muster image push: --stage {} must be an absolute path",
                                   options.stage));
  }
  if (auto report = image::run_image_push(options); !report) return report_error(report.error());
  return kExitOk;
}

}  // namespace muster::cli
