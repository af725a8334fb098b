// The process environment. The agent builds each worker's environment as its own environment plus the
// head's overrides (spawn() then looks argv[0] up in the PATH of that result).
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

// This process's pid.
int current_pid();

bool is_directory(const std::string& path);

// The first executable file named `program` in the directories of $PATH; nullopt when there is none.
std::optional<std::string> find_program(const std::string& program);

}  // namespace muster::posix
