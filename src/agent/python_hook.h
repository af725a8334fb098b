// The Python hook the agent installs for its workers (python/sitecustomize.py, compiled in; see worker_setup.h).
#pragma once

#include <string_view>

namespace muster::agent {

std::string_view python_hook_text();

}  // namespace muster::agent
