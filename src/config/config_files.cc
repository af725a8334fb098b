#include "config/config_files.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include <fmt/core.h>

#include "config/toml_reader.h"
#include "config/trust.h"
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

// Why the file `path` (lstat: `st`) is not used, or "" when it may be: a regular file of this user or root that
// neither group nor others can write.
std::string why_untrusted(const std::string& path, const posix::FileStat& st, uint32_t uid) {
  if (!st.is_file()) {
    return fmt::format("ignoring {}: it is {}, not a regular file", path,
                       st.is_link() ? "a symbolic link" : st.is_dir() ? "a directory" : "a FIFO, socket or device");
  }
  if (st.uid != uid && st.uid != 0) {
    return fmt::format("ignoring {}: it belongs to uid {}, not to you (uid {}) or root; settings can choose ssh "
                       "options, so copy the file if you trust it",
                       path, st.uid, uid);
  }
  if (st.mode & 0002) return fmt::format("ignoring {}: anyone can write to it (chmod o-w {})", path, path);
  if (st.mode & 0020) {
    return fmt::format("ignoring {}: its group can write to it, so others may choose your settings (chmod g-w {})",
                       path, path);
  }
  return "";
}

// Reads `path` if it exists and may be trusted; nullopt (with a warning) when it must be ignored.
Result<std::optional<ConfigFile>> read_file(const std::string& path, const std::string& role, uint32_t uid,
                                            std::vector<std::string>& warnings) {
  auto seen = posix::lstat_path(path);
  if (!seen) return make_error(ErrorKind::usage, "cannot read {}: {}", path, seen.error().message);
  if (!*seen) return std::optional<ConfigFile>();
  // The user's own file may be a link (dotfile managers make them); what it names is checked once opened.
  bool follow = role == "user" && (*seen)->is_link();
  if (auto why = follow ? "" : why_untrusted(path, **seen, uid); !why.empty()) {
    warnings.push_back(why);
    return std::optional<ConfigFile>();
  }
  auto fd = posix::open_read(path, !follow);  // O_NONBLOCK, a regular file only; O_NOFOLLOW but for the above
  if (!fd) {
    if (fd.error().sys == ENOENT) return std::optional<ConfigFile>();
    if (fd.error().sys == ELOOP || fd.error().sys == posix::kNotRegularFile) {  // swapped since the lstat
      warnings.push_back(fmt::format("ignoring {}: {}", path, fd.error().message));
      return std::optional<ConfigFile>();
    }
    return make_error(ErrorKind::usage, "cannot read {}: {}", path, fd.error().message);
  }
  auto stat = posix::stat_fd(fd->get());
  if (!stat) return make_error(ErrorKind::usage, "cannot read {}: {}", path, stat.error().message);
  if (auto why = why_untrusted(path, *stat, uid); !why.empty()) {
    warnings.push_back(why);
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
  file->digest = content_digest(*text);
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
  return {error ? "" : cwd.string(), user_config_path(std::getenv("XDG_CONFIG_HOME"), posix::home_directory()),
          default_allow_dir()};
}

Result<ConfigFile> read_project_file(const std::string& path, uint32_t uid) {
  std::vector<std::string> warnings;
  auto file = read_file(path, "project", uid, warnings);
  if (!file) return file.error();
  if (!*file) {
    return make_error(ErrorKind::usage, "{}", warnings.empty() ? "no such file: " + path : warnings.front());
  }
  return std::move(**file);
}

Result<ConfigSet> load_config(const ConfigLocations& where, uint32_t uid) {
  ConfigSet set;
  set.project_searched_from = where.start_directory;
  set.user_path = where.user_path;
  std::string project = where.start_directory.empty() ? "" : find_project_file(where.start_directory);
  if (!project.empty()) {
    auto file = read_file(project, "project", uid, set.warnings);
    if (!file) return file.error();
    if (*file) {
      (*file)->allowed = is_allowed(where.allow_dir, project, (*file)->digest);
      set.files.push_back(std::move(**file));
    }
  }
  if (!where.user_path.empty() && where.user_path != project) {
    auto file = read_file(where.user_path, "user", uid, set.warnings);
    if (!file) return file.error();
    if (*file) set.files.push_back(std::move(**file));
  }
  return set;
}

}  // namespace muster::config
