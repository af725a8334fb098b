#include "config/trust.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "config/config_files.h"
#include "posix/dir.h"
#include "posix/fd.h"
#include "posix/file.h"
#include "util/sha256.h"
#include "util/text.h"

namespace muster::config {
namespace {

struct KeyNeedingAllow {
  std::string_view key;
  const char* why;
};

// Every option that runs a command, chooses what runs, or sends the job, its environment or files elsewhere.
// Keys are options' long names, whatever table they are in.
constexpr KeyNeedingAllow kNeedAllow[] = {
    {"ssh-option", "passes options to ssh (ProxyCommand and LocalCommand run commands)"},
    {"ssh-config", "chooses the ssh config file (its ProxyCommand and Match exec run commands)"},
    {"python", "names the program doctor runs"},
    {"hosts", "chooses the machines the job, its environment and its tokens go to"},
    {"hostfile", "chooses the machines the job, its environment and its tokens go to"},
    {"user", "chooses the login the job runs as on the nodes"},
    {"master-addr", "chooses the address every rank connects to"},
    {"env", "sets the workers' environment (LD_PRELOAD, PYTHONPATH and the like run code)"},
    {"env-file", "sets the workers' environment (LD_PRELOAD, PYTHONPATH and the like run code)"},
    {"env-prefix", "chooses which of your variables go to the nodes"},
    {"sync", "chooses a directory launch copies to the nodes"},
    {"to", "chooses where sync writes on the nodes"},
    {"delete", "makes sync delete files on the nodes"},
    {"container-image", "chooses the image the job runs in (with your mounts, tokens and GPUs)"},
    {"container", "chooses the container the job runs in"},
    {"container-option", "passes options to the container runtime (--privileged, --volume)"},
    {"mount", "mounts directories of the nodes into the job's containers"},
    {"node-cache-dir", "chooses where compiled kernels and extensions are loaded from"},
};

std::string record_name(const std::string& path, const std::string& digest) {
  return sha256_hex(path + '\n' + digest);
}

// The record files in `dir` (64 hex digits) that name `path`.
std::vector<std::string> records_of(const posix::Dir& dir, const std::string& path) {
  std::vector<std::string> found;
  auto names = dir.names();
  if (!names) return found;
  for (const auto& name : *names) {
    if (name.size() != 64 || name.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    auto fd = dir.open_read(name);
    if (!fd) continue;
    auto text = posix::read_to_end(fd->get());
    if (text && text->substr(0, text->find('\n')) == path) found.push_back(name);
  }
  return found;
}

const ConfigFile* file_named(const ConfigSet& config, const std::string& path) {
  for (const ConfigFile& file : config.files) {
    if (file.path == path) return &file;
  }
  return nullptr;
}

// The applied settings that come from project files, in file order.
std::vector<const Setting*> project_settings(const AppliedSettings& applied, const ConfigSet& config) {
  std::vector<const Setting*> found;
  for (const auto& entry : applied) {
    const Setting* setting = entry.second.setting;
    const ConfigFile* file = setting ? file_named(config, setting->source.file) : nullptr;
    if (file && file->role == "project") found.push_back(setting);
  }
  std::sort(found.begin(), found.end(), [](const Setting* a, const Setting* b) {
    return std::pair(a->source.file, a->source.line) < std::pair(b->source.file, b->source.line);
  });
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

}  // namespace

const char* why_key_needs_allow(std::string_view key) {
  for (const auto& entry : kNeedAllow) {
    if (entry.key == key) return entry.why;
  }
  return nullptr;
}

std::string allow_dir(const char* xdg_state_home, const std::string& home) {
  if (xdg_state_home != nullptr && xdg_state_home[0] == '/') return std::string(xdg_state_home) + "/muster/allowed";
  return home.empty() ? "" : home + "/.local/state/muster/allowed";
}

std::string default_allow_dir() { return allow_dir(std::getenv("XDG_STATE_HOME"), posix::home_directory()); }

std::string content_digest(std::string_view text) { return sha256_hex(text); }

bool is_allowed(const std::string& dir, const std::string& path, const std::string& digest) {
  if (dir.empty()) return false;
  auto opened = posix::Dir::open(dir);
  if (!opened) return false;
  auto self = opened->stat_self();
  if (!self || self->uid != posix::effective_uid() || (self->mode & 0022) != 0) return false;
  auto fd = opened->open_read(record_name(path, digest));
  if (!fd) return false;
  auto st = posix::stat_fd(fd->get());
  if (!st || st->uid != posix::effective_uid() || (st->mode & 0022) != 0) return false;
  auto text = posix::read_to_end(fd->get());
  return text && *text == path + '\n' + digest + '\n';
}

Result<void> record_allow(const std::string& dir, const std::string& path, const std::string& digest) {
  if (dir.empty()) return make_error(ErrorKind::usage, "no home directory to keep the record of allowed files in");
  if (auto made = posix::ensure_private_dir(dir); !made) return made.error();
  auto opened = posix::Dir::open(dir);
  if (!opened) return make_error(ErrorKind::io, "cannot open {}: {}", dir, opened.error().message);
  std::string name = record_name(path, digest);
  for (const auto& old : records_of(*opened, path)) {
    if (old != name) (void)opened->remove(old, false);
  }
  return posix::write_file_atomic(dir + "/" + name, path + '\n' + digest + '\n', 0600);
}

Result<int> revoke_allows(const std::string& dir, const std::string& path) {
  auto opened = posix::Dir::open(dir);
  if (!opened) {
    if (opened.error().sys == ENOENT) return 0;
    return make_error(ErrorKind::io, "cannot open {}: {}", dir, opened.error().message);
  }
  int removed = 0;
  for (const auto& name : records_of(*opened, path)) removed += opened->remove(name, false) ? 1 : 0;
  return removed;
}

Result<std::string> allow_project_file(const std::string& path) {
  auto file = read_project_file(path, posix::effective_uid());
  if (!file) return file.error();
  std::string dir = default_allow_dir();
  if (auto recorded = record_allow(dir, path, file->digest); !recorded) return recorded.error();
  std::string keys = keys_needing_allow(*file);
  return fmt::format("allowed {} as it is now (SHA-256 {}; recorded in {}){}", path, file->digest.substr(0, 16),
                     dir, keys.empty() ? "" : "; it sets " + keys);
}

Result<std::string> deny_project_file(const std::string& path) {
  auto removed = revoke_allows(default_allow_dir(), path);
  if (!removed) return removed.error();
  return *removed == 0 ? fmt::format("{} was not allowed", path) : fmt::format("{} is no longer allowed", path);
}

Result<void> check_allowed(const AppliedSettings& applied, const ConfigSet& config) {
  std::string listed;
  std::set<std::string> files;
  for (const Setting* setting : project_settings(applied, config)) {
    const char* why = why_key_needs_allow(setting->key);
    if (why == nullptr || file_named(config, setting->source.file)->allowed) continue;
    listed += fmt::format("\n  {}: {} {}", setting->source.text(), setting->display(), why);
    files.insert(setting->source.file);
  }
  if (files.empty()) return {};
  std::string file = *files.begin();
  return make_error(ErrorKind::usage,
                    "{} sets what runs or where your job goes, and you have not allowed it:{}\nread it; then `muster "
                    "config allow {}` allows this content of it (a change asks again)",
                    file, listed, file);
}

std::string project_settings_note(const AppliedSettings& applied, const ConfigSet& config) {
  std::vector<std::string> keys;
  std::string file;
  for (const Setting* setting : project_settings(applied, config)) {
    if (std::find(keys.begin(), keys.end(), setting->display()) == keys.end()) keys.push_back(setting->display());
    file = setting->source.file;
  }
  if (keys.empty()) return "";
  return fmt::format("using {}: {}", file, join(keys, ", "));
}

std::string keys_needing_allow(const ConfigFile& file) {
  std::vector<const Setting*> found;
  for (const Setting& setting : file.settings) {
    if (why_key_needs_allow(setting.key)) found.push_back(&setting);
  }
  std::sort(found.begin(), found.end(), [](const Setting* a, const Setting* b) { return a->source.line < b->source.line; });
  std::vector<std::string> keys;
  for (const Setting* setting : found) keys.push_back(fmt::format("{} (line {})", setting->display(), setting->source.line));
  return join(keys, ", ");
}

}  // namespace muster::config
