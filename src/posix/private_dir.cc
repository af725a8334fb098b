#include "posix/private_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "posix/file.h"

namespace muster::posix {
namespace {

Result<void> make_one(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) return {};
  return make_error(ErrorKind::io, "cannot create {}: {}", path, std::strerror(errno));
}

// mkdir -p with 0700 for what is missing (nothing is checked: this is the user's own cache directory).
Result<void> make_all(const std::string& path) {
  for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    std::string prefix = path.substr(0, end);
    if (!prefix.empty()) {
      if (auto made = make_one(prefix); !made) return made.error();
    }
    if (end == std::string::npos) return {};
  }
}

Result<void> check_private(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return make_error(ErrorKind::io, "cannot use {}: {}", path, std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return make_error(ErrorKind::io, "refusing {}: it is not a directory", path);
  if (st.st_uid != ::geteuid()) {
    return make_error(ErrorKind::io,
                      "refusing {}: it belongs to uid {}, not to you (uid {}); remove it, or set XDG_CACHE_HOME to a "
                      "directory of your own",
                      path, st.st_uid, ::geteuid());
  }
  if ((st.st_mode & 022) != 0) {
    return make_error(ErrorKind::io,
                      "refusing {}: it is writable by its group or others (mode {:o}), and muster keeps ssh control "
                      "sockets and caches there; fix it with: chmod go-w '{}'",
                      path, st.st_mode & 07777, path);
  }
  return {};
}

}  // namespace

std::string user_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return xdg;  // relative values are invalid (XDG spec)
  std::string home = home_directory();
  return home.empty() ? std::string() : home + "/.cache";
}

Result<std::string> make_private_dir(const std::string& root, const std::string& below) {
  if (root.empty()) return make_error(ErrorKind::io, "no home or cache directory to keep {} in", below);
  if (auto made = make_all(root); !made) return made.error();
  std::string path = root;
  size_t start = 0;
  while (start < below.size()) {
    size_t end = below.find('/', start);
    if (end == std::string::npos) end = below.size();
    if (end > start) {
      path += "/" + below.substr(start, end - start);
      if (auto made = make_one(path); !made) return made.error();
      if (auto checked = check_private(path); !checked) return checked.error();
    }
    start = end + 1;
  }
  return path;
}

}  // namespace muster::posix
