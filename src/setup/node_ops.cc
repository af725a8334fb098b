#include "setup/node_ops.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "posix/file.h"
#include "posix/process.h"
#include "posix/socket.h"
#include "setup/file_edits.h"
#include "setup/hosts_entries.h"

namespace muster::setup {
namespace {

namespace fs = std::filesystem;

bool write_in_place(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out.flush());
}

// What commit() writes where.
struct Target {
  bool dry_run = false;
  std::string file;
  int mode = 0;  // 0: leave as is (new files get 0644)
};

// Writes `updated` over `path` after backing up `current`; prints the result line.
int commit(const Target& options, const std::string& current, const std::string& updated, bool existed) {
  if (updated == current && existed) {
    fmt::print("unchanged\n");
    return 0;
  }
  if (options.dry_run) {
    fmt::print("would-change\n");
    return 0;
  }
  if (existed && !write_in_place(options.file + ".muster-backup", current)) {
    fmt::print(stderr, "cannot write the backup {}.muster-backup\n", options.file);
    return 1;
  }
  if (!write_in_place(options.file, updated)) {
    fmt::print(stderr, "cannot write {}\n", options.file);
    return 1;
  }
  std::error_code ignored;
  if (options.mode != 0) fs::permissions(options.file, static_cast<fs::perms>(options.mode), ignored);
  fmt::print("changed\n");
  return 0;
}

std::string home() {
  const char* value = std::getenv("HOME");
  return value ? value : "/";
}

// "0600" -> 0600; "" -> 0 (leave the mode as is).
Result<int> parse_mode(const std::string& text) {
  if (text.empty()) return 0;
  int mode = 0;
  for (char c : text) {
    if (c < '0' || c > '7' || mode > 07777) return make_error(ErrorKind::usage, "--mode {}: not an octal file mode", text);
    mode = mode * 8 + (c - '0');
  }
  if (mode > 07777) return make_error(ErrorKind::usage, "--mode {}: not an octal file mode", text);
  return mode;
}

}  // namespace

Result<int> HostsBlockOp::run(const HostsBlockOp& options) {
  for (const auto& line : options.lines) {
    if (auto ok = check_hosts_entry(line); !ok) {
      fmt::print(stderr, "not changing {}: {}\n", options.file, ok.error().message);
      return 1;
    }
  }
  auto current = posix::read_regular_file(options.file, true);  // /etc/hosts: a FIFO there must not block
  if (!current) {
    fmt::print(stderr, "cannot read {}: {}\n", options.file, current.error().message);
    return 1;
  }
  auto own = posix::hostname();
  std::string name = own ? *own : "";
  std::string updated = apply_hosts_block(*current, options.lines, options.fix_loopback, name);
  if (has_loopback_self_mapping(updated, name)) fmt::print("loopback-trap {}\n", name);
  return commit({options.dry_run, options.file, 0}, *current, updated, true);
}

Result<int> AddLinesOp::run(const AddLinesOp& options) {
  auto mode = parse_mode(options.mode);
  if (!mode) return mode.error();
  auto read = posix::read_regular_file(options.file, true);  // missing: made below (unless a dry run)
  if (!read && read.error().sys != ENOENT) {
    fmt::print(stderr, "cannot read {}: {}\n", options.file, read.error().message);
    return 1;
  }
  bool existed = read.has_value();
  std::string current = existed ? *read : "";
  if (!existed && !options.dry_run) {
    std::error_code error;
    fs::path dir = fs::path(options.file).parent_path();
    if (!dir.empty() && !fs::exists(dir)) {
      fs::create_directories(dir, error);
      fs::permissions(dir, fs::perms::owner_all, error);
    }
  }
  return commit({options.dry_run, options.file, *mode}, current, add_missing_lines(current, options.lines), existed);
}

Result<int> SshIdentityOp::run(const SshIdentityOp& options) {
  std::string ssh_dir = home() + "/.ssh";
  for (const char* name : {"id_ed25519", "id_ecdsa", "id_rsa"}) {
    auto key = posix::read_regular_file(ssh_dir + "/" + name + ".pub", true);
    if (key && fs::exists(ssh_dir + "/" + name)) {
      fmt::print("key {}\n", key->substr(0, key->find('\n')));
      return 0;
    }
  }
  if (options.dry_run) {
    fmt::print("would-create {}/id_ed25519\n", ssh_dir);
    return 0;
  }
  std::error_code error;
  fs::create_directories(ssh_dir, error);
  fs::permissions(ssh_dir, fs::perms::owner_all, error);
  auto own = posix::hostname();
  posix::SpawnOptions keygen;
  keygen.argv = {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "muster@" + (own ? *own : std::string("node")),
                 "-f", ssh_dir + "/id_ed25519"};
  auto process = posix::spawn(keygen);
  if (!process) {
    fmt::print(stderr, "{}\n", process.error().message);
    return 1;
  }
  if (posix::shell_exit_code(process->wait()) != 0) {
    fmt::print(stderr, "ssh-keygen failed\n");
    return 1;
  }
  auto key = posix::read_text_file(ssh_dir + "/id_ed25519.pub");
  if (!key) return 1;
  fmt::print("created\nkey {}\n", key->substr(0, key->find('\n')));
  return 0;
}

}  // namespace muster::setup
