// Checks shared by the container kinds (compose, k8s): an image and a command are required, and the
// image reference is one word.
#pragma once

#include <string_view>

#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

Result<void> check_container_options(const GenOptions& options, std::string_view kind);

}  // namespace muster::gen
