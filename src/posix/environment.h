// The process environment and PATH lookup. The agent builds each worker's environment as its own
// environment plus the head's overrides, and resolves argv[0] against the PATH of that result (execvp
// would use the agent's PATH instead).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace muster::posix {

// Every K=V entry of this process's environment, in environ order.
std::vector<std::string> current_environment();

// `base` with each K=V of `overrides` replacing the entry of the same name (or appended).
std::vector<std::string> merge_environment(std::vector<std::string> base, const std::vector<std::string>& overrides);

// The value of `name` in a K=V list, if present.
std::optional<std::string> find_variable(const std::vector<std::string>& env, std::string_view name);

// `program` resolved like execvp does, but against `path_value`: returned unchanged when it holds a '/',
// else the first executable `dir/program`; nullopt when none is.
std::optional<std::string> find_in_path(const std::string& program, std::string_view path_value);

// This process's pid.
int current_pid();

bool is_executable_file(const std::string& path);
bool is_directory(const std::string& path);

}  // namespace muster::posix
