#include "posix/environment.h"

#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

namespace muster::posix {

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) env.emplace_back(*entry);
  return env;
}

static std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

std::vector<std::string> merge_environment(std::vector<std::string> base, const std::vector<std::string>& overrides) {
  for (const auto& entry : overrides) {
    auto same_name = [&](const std::string& existing) { return name_of(existing) == name_of(entry); };
    std::erase_if(base, same_name);
    base.push_back(entry);
  }
  return base;
}

std::optional<std::string> find_variable(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& entry : env) {
    if (name_of(entry) == name && entry.size() > name.size()) return entry.substr(name.size() + 1);
  }
  return std::nullopt;
}

int current_pid() { return static_cast<int>(::getpid()); }

bool is_executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::optional<std::string> find_in_path(const std::string& program, std::string_view path_value) {
  if (program.find('/') != std::string::npos) return program;
  size_t start = 0;
  while (start <= path_value.size()) {
    size_t end = path_value.find(':', start);
    if (end == std::string_view::npos) end = path_value.size();
    std::string dir(path_value.substr(start, end - start));
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace muster::posix
