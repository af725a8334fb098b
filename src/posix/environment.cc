#include "posix/environment.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

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

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::optional<std::string> find_program(const std::string& program) {
  const char* path = ::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    size_t colon = dirs.find(':');
    std::string candidate = std::string(dirs.substr(0, colon)) + "/" + program;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace muster::posix
