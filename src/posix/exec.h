// Replacing this process with another program, and finding programs: for `muster agent --container-spec`, which
// becomes the container runtime's client (exec, not a child: nothing of muster's stays between the transport
// and the container), and for the agent's guard, which runs this same program again.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::posix {

// execvp(argv) with this process's environment; argv[0] is looked up in PATH when it has no '/'. Returns only
// when the exec failed, with the reason.
Error exec_program(const std::vector<std::string>& argv);

// The first executable `name` in PATH ("/usr/bin/podman"), or nullopt.
std::optional<std::string> find_in_path(std::string_view name);

// The file this process runs, resolved (readlink /proc/self/exe); empty if unknown. Under an explicit loader
// (`ld.so --library-path DIR PROGRAM`, as the agent in a container runs) that is the loader.
std::string self_executable_path();

// The program this process runs: self_executable_path(), or under an explicit loader the program it loaded.
std::string self_program_path();

}  // namespace muster::posix
