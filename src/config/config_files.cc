#include "config/config_files.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include <fmt/core.h>

#include "config/toml_reader.h"
#include "posix/fd.h"
#include "posix/file.h"

namespace muster::config {
namespace {

constexpr size_t kMaxConfigBytes = 1 << 20;

// The nearest muster.toml from `directory` up to /, or "".
std::string find_project_file(const std::string& directory) {
  std::filesystem::path dir(directory);
  while (true) {
    auto candidate = dir / kProjectFileName;
    auto found = posix::lstat_path(candidate.string());
    if (found && *found) return candidate.string();
    if (!dir.has_parent_path() || dir.parent_path() == dir) return "";
    dir = dir.parent_path();
  }
}

// Reads `path` if it exists and may be trusted; nullopt (with a warning) when it must be ignored.
Result<std::optional<ConfigFile>> read_file(const std::string& path, const std::string& role, uint32_t uid,
                                            std::vector<std::string>& warnings) {
  auto fd = posix::open_read(path, false);
  if (!fd) {
    if (fd.error().sys == ENOENT) return std::optional<ConfigFile>();
    return make_error(ErrorKind::usage, "cannot read {}: {}", path, fd.error().message);
  }
  auto stat = posix::stat_fd(fd->get());
  if (!stat) return make_error(ErrorKind::usage, "cannot read {}: {}", path, stat.error().message);
  if (!stat->is_file()) return make_error(ErrorKind::usage, "{} is not a regular file", path);
  if (stat->uid != uid && stat->uid != 0) {
    warnings.push_back(fmt::format("ignoring {}: it belongs to uid {}, not to you (uid {}) or root; settings can "
                                   "choose ssh options, so copy the file if you trust it",
                                   path, stat->uid, uid));
    return std::optional<ConfigFile>();
  }
  if (stat->mode & 0002) {
    warnings.push_back(fmt::format("ignoring {}: anyone can write to it (chmod o-w {})", path, path));
    return std::optional<ConfigFile>();
  }
  if (stat->size > kMaxConfigBytes) {
    return make_error(ErrorKind::usage, "{} is {} bytes, more than a config file's limit of {}", path, stat->size,
                      kMaxConfigBytes);
  }
  auto text = posix::read_to_end(fd->get());
  if (!text) return make_error(ErrorKind::usage, "cannot read {}: {}", path, text.error().message);
  auto file = parse_config_text(*text, path, role);
  if (!file) return file.error();
  return std::optional<ConfigFile>(std::move(*file));
}

}  // namespace

std::string user_config_path(const char* xdg_config_home, const std::string& home) {
  if (xdg_config_home != nullptr && xdg_config_home[0] == '/') return std::string(xdg_config_home) + "/muster/config.toml";
  return home.empty() ? "" : home + "/.config/muster/config.toml";
}

ConfigLocations default_locations() {
  std::error_code error;
  auto cwd = std::filesystem::current_path(error);
  return {error ? "" : cwd.string(), user_config_path(std::getenv("XDG_CONFIG_HOME"), posix::home_directory())};
}

Result<ConfigSet> load_config(const ConfigLocations& where, uint32_t uid) {
  ConfigSet set;
  set.project_searched_from = where.start_directory;
  set.user_path = where.user_path;
  std::string project = where.start_directory.empty() ? "" : find_project_file(where.start_directory);
  if (!project.empty()) {
    auto file = read_file(project, "project", uid, set.warnings);
    if (!file) return file.error();
    if (*file) set.files.push_back(std::move(**file));
  }
  if (!where.user_path.empty() && where.user_path != project) {
    auto file = read_file(where.user_path, "user", uid, set.warnings);
    if (!file) return file.error();
    if (*file) set.files.push_back(std::move(**file));
  }
  return set;
}

}  // namespace muster::config
