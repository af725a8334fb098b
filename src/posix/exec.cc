#include "posix/exec.h"

#include <errno.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace muster::posix {
namespace {

std::string read_link(const char* path) {
  char buffer[4096];
  ssize_t n = ::readlink(path, buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
}

std::string base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Started as `ld.so --library-path DIR PROGRAM ...`: /proc/self/exe is the loader, and the loader made the
// program's path argv[0].
bool under_explicit_loader(const std::string& exe) {
  std::string name = base_name(exe);
  bool loader = name.starts_with("ld-") || name == "ld.so";
  return loader && program_invocation_name && program_invocation_name[0] == '/';
}

}  // namespace

Error exec_program(const std::vector<std::string>& argv) {
  if (argv.empty()) return make_error(ErrorKind::usage, "exec: empty command");
  std::vector<char*> pointers;
  for (const auto& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  ::execvp(pointers[0], pointers.data());
  int error = errno;
  return make_error(ErrorKind::io, "cannot run {}: {}", argv[0], std::strerror(error));
}

std::optional<std::string> find_in_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + std::string(name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

std::string self_executable_path() { return read_link("/proc/self/exe"); }

std::string self_program_path() {
  std::string exe = read_link("/proc/self/exe");
  return under_explicit_loader(exe) ? std::string(program_invocation_name) : exe;
}

}  // namespace muster::posix
