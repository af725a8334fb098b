// Which files the agent needs inside a container: its executable plus the dynamic loader and libraries it runs
// with on this node, found in /proc/self/maps. The executable links everything but glibc statically, and the
// glibc it was built against may be newer than an image's (Ubuntu 22.04 images have 2.35), so inside the
// container the agent runs with the node's own loader and libc, never the image's (runtime_argv.h).
#pragma once

#include <string>
#include <string_view>

#include "container/runtime_argv.h"
#include "util/result.h"

namespace muster::container {

// From the text of /proc/self/maps and the executable's path: the loader (a file named ld-*), and each other
// mapped shared library under the name the loader looks for (its soname: libc.so.6 for libc-2.31.so). Pure.
Result<AgentFiles> agent_files_from_maps(std::string_view maps, const std::string& executable);

// The same for this process.
Result<AgentFiles> this_agent_files();

}  // namespace muster::container
