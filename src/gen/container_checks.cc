#include "gen/container_checks.h"

#include <algorithm>

#include "gen/provenance.h"

namespace muster::gen {

Result<void> check_container_options(const GenOptions& options, std::string_view kind) {
  const std::string& image = options.container.image;
  if (image.empty()) {
    return make_error(ErrorKind::usage,
                      "{}: give the container image with your code and PyTorch, e.g. --image "
                      "nvcr.io/nvidia/pytorch:24.05-py3",
                      kind);
  }
  if (std::any_of(image.begin(), image.end(), [](char c) { return static_cast<unsigned char>(c) <= ' '; })) {
    return make_error(ErrorKind::usage, "{}: --image '{}' must not hold spaces or control characters", kind,
                      one_line(image));
  }
  if (options.command.empty()) {
    return make_error(ErrorKind::usage, "{}: give the training command after --, e.g. -- python3 train.py",
                      kind);
  }
  return {};
}

}  // namespace muster::gen
