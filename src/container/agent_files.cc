#include "container/agent_files.h"

#include <algorithm>

#include "posix/exec.h"
#include "posix/file.h"
#include "util/text.h"

namespace muster::container {
namespace {

std::string base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// glibc before 2.34 installed its libraries as libc-2.31.so with a libc.so.6 symlink; the loader asks for the
// soname.
std::string soname(const std::string& name) {
  if (name.find(".so.") != std::string::npos) return name;
  static const std::pair<std::string_view, std::string_view> glibc[] = {
      {"libc-", "libc.so.6"},       {"libm-", "libm.so.6"}, {"libpthread-", "libpthread.so.0"},
      {"libdl-", "libdl.so.2"},     {"librt-", "librt.so.1"}, {"libresolv-", "libresolv.so.2"},
      {"libmvec-", "libmvec.so.1"},
  };
  for (const auto& [prefix, so] : glibc) {
    if (name.starts_with(prefix)) return std::string(so);
  }
  return name;
}

}  // namespace

Result<AgentFiles> agent_files_from_maps(std::string_view maps, const std::string& executable) {
  AgentFiles files;
  files.executable = executable;
  for (std::string_view line : split_lines(maps)) {
    // address perms offset dev inode path: the path starts at the first '/' after the inode.
    size_t slash = line.find('/');
    if (slash == std::string_view::npos) continue;
    std::string path(line.substr(slash));
    if (path.ends_with(" (deleted)") || path == executable) continue;
    std::string name = base_name(path);
    if (name.find(".so") == std::string::npos) continue;  // locale archives and the like
    if (name.starts_with("ld-") || name == "ld.so") {
      if (files.loader.empty()) files.loader = path;
      continue;
    }
    std::string so = soname(name);
    bool known = std::any_of(files.libraries.begin(), files.libraries.end(), [&](auto& lib) { return lib.first == so; });
    if (!known) files.libraries.emplace_back(so, path);
  }
  if (files.loader.empty()) {
    return make_error(ErrorKind::io, "cannot find this program's dynamic loader in /proc/self/maps");
  }
  return files;
}

Result<AgentFiles> this_agent_files() {
  std::string executable = posix::self_executable_path();
  if (executable.empty()) return make_error(ErrorKind::io, "cannot resolve /proc/self/exe");
  auto maps = posix::read_text_file("/proc/self/maps");
  if (!maps) return maps.error();
  return agent_files_from_maps(*maps, executable);
}

}  // namespace muster::container
