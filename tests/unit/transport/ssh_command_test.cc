#include "transport/ssh_command.h"
#include "transport/ssh_cipher.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "util/sha256.h"
#include "util/shell_quote.h"

namespace muster::transport {
namespace {

bool has_option(const std::vector<std::string>& argv, const std::string& value) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-o" && argv[i + 1] == value) return true;
  }
  return false;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::string& bytes, int mode) {
  {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
  }
  std::filesystem::permissions(path, static_cast<std::filesystem::perms>(mode));
}

// A fake home directory, removed at the end.
struct Home {
  std::string path;
  explicit Home(const std::string& tag) {
    std::string pattern = "/tmp/muster-ssh-" + tag + "-XXXXXX";
    path = mkdtemp(pattern.data());
  }
  ~Home() { std::filesystem::remove_all(path); }
};

// Runs the bootstrap in `home` with `input` on its stdin; returns its exit code and stdout (and stderr).
std::pair<int, std::string> run_bootstrap(const std::string& home, const SelfBinary& binary, const std::string& input,
                                          bool stderr_too = false) {
  std::string input_file = home + "/input";
  write_file(input_file, input, 0600);
  std::string command = remote_agent_command(binary, {"--nonce", "n"});
  FILE* pipe = popen(("env -u XDG_CACHE_HOME HOME=" + home + " sh -c " + shell_quote(command) + " < " + input_file +
                      (stderr_too ? " 2>&1" : ""))
                         .c_str(),
                     "r");
  if (pipe == nullptr) return {-1, ""};
  std::string out;
  char buffer[512];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  int status = pclose(pipe);
  std::filesystem::remove(input_file);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST(SshCommand, UsesBatchModeTimeoutsAndMultiplexing) {
  SshOptions options;
  options.connect_timeout_s = 7;
  options.control_dir = "/home/u/.cache/muster/ssh";
  options.extra_options = {"Port=2222"};
  auto argv = ssh_argv(options, "alice@gpu1", "true");
  EXPECT_EQ(argv.front(), "ssh");
  EXPECT_TRUE(has_option(argv, "BatchMode=yes"));
  EXPECT_TRUE(has_option(argv, "ConnectTimeout=7"));
  EXPECT_TRUE(has_option(argv, "ControlMaster=auto"));
  EXPECT_TRUE(has_option(argv, "ControlPath=" + control_path(options, "alice@gpu1")));
  EXPECT_EQ(control_path(options, "alice@gpu1").rfind("/home/u/.cache/muster/ssh/", 0), 0u);
  EXPECT_TRUE(has_option(argv, "Port=2222"));
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-T"), argv.end());  // never a tty: it would mangle frames
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[argv.size() - 3], "--");
  EXPECT_EQ(argv[argv.size() - 2], "alice@gpu1");
  EXPECT_EQ(argv.back(), "true");
}

TEST(SshCommand, PrefersAesGcmOnAesCpusButTheUsersOptionsComeFirstAndWin) {
  SshOptions options;
  options.cpu_has_aes = true;
  options.extra_options = {"Ciphers=aes256-ctr", "BatchMode=no"};
  auto argv = ssh_argv(options, "node1", "true");
  EXPECT_TRUE(has_option(argv, std::string("Ciphers=") + kAesFirstCiphers));
  // ssh keeps the first value of an option: the user's must come before muster's.
  auto position = [&](const std::string& value) {
    return std::find(argv.begin(), argv.end(), value) - argv.begin();
  };
  EXPECT_LT(position("Ciphers=aes256-ctr"), position(std::string("Ciphers=") + kAesFirstCiphers));
  EXPECT_LT(position("BatchMode=no"), position("BatchMode=yes"));
  options.cipher = kCipherDefault;
  argv = ssh_argv(options, "node1", "true");
  EXPECT_FALSE(has_option(argv, std::string("Ciphers=") + kAesFirstCiphers));
}

TEST(SshCommand, NoMultiplexingWhenOff) {
  SshOptions options;
  options.multiplex = false;
  options.control_dir = "/x";
  options.config_file = "/etc/cluster/ssh_config";
  auto argv = ssh_argv(options, "node1", "true");
  EXPECT_FALSE(has_option(argv, "ControlMaster=auto"));
  auto f = std::find(argv.begin(), argv.end(), "-F");
  ASSERT_NE(f, argv.end());
  EXPECT_EQ(*(f + 1), "/etc/cluster/ssh_config");
}

// The remote command is what a login shell gets: run through sh, it must reach the cached binary with every
// agent argument intact. A fake `muster` in a fake home shows the argv the agent would get.
TEST(SshCommand, RemoteCommandRunsTheCachedBinaryWithExactArguments) {
  char dir_template[] = "/tmp/muster-ssh-command-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::string home = dir_template;
  std::string bin_dir = home + "/.cache/muster/0123456789abcdef";
  std::filesystem::create_directories(bin_dir);
  {
    std::ofstream fake(bin_dir + "/muster");
    fake << "#!/bin/sh\nfor a in \"$@\"; do printf '%s|' \"$a\"; done\n";
  }
  std::filesystem::permissions(bin_dir + "/muster", std::filesystem::perms::owner_all);
  SelfBinary binary{"/proc/self/exe", "0123456789abcdef", 42, sha256_hex(read_file(bin_dir + "/muster"))};
  std::string command = remote_agent_command(binary, {"--nonce", "a b'c", "$HOME", ""});
  FILE* pipe = popen(("env -u XDG_CACHE_HOME HOME=" + home + " sh -c " + shell_quote(command)).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[512] = {};
  size_t n = fread(buffer, 1, sizeof buffer - 1, pipe);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(std::string(buffer, n), "agent|--nonce|a b'c|$HOME||");
  std::filesystem::remove_all(home);
}

// Without a cached binary the script asks for an upload and stores exactly what arrives on stdin.
TEST(SshCommand, RemoteCommandAsksForAnUploadAndStoresIt) {
  char dir_template[] = "/tmp/muster-ssh-upload-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::string home = dir_template;
  std::string payload = "#!/bin/sh\necho uploaded \"$@\"\n";
  SelfBinary binary{"/proc/self/exe", "fedcba9876543210", payload.size(), sha256_hex(payload)};
  std::string command = remote_agent_command(binary, {"--nonce", "n"});
  std::string input_file = home + "/input";
  {
    std::ofstream input(input_file, std::ios::binary);
    input << payload;
  }
  FILE* pipe = popen(("env -u XDG_CACHE_HOME HOME=" + home + " sh -c " + shell_quote(command) + " < " + input_file)
                         .c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[512] = {};
  size_t n = fread(buffer, 1, sizeof buffer - 1, pipe);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(std::string(buffer, n), "\nMUSTER-UPLOAD fedcba9876543210 " + std::to_string(payload.size()) +
                                        "\nuploaded agent --nonce n\n");
  std::ifstream stored(home + "/.cache/muster/fedcba9876543210/muster", std::ios::binary);
  std::string stored_bytes((std::istreambuf_iterator<char>(stored)), std::istreambuf_iterator<char>());
  EXPECT_EQ(stored_bytes, payload);
  std::filesystem::remove_all(home);
}

// A cached binary whose content is not the head's is replaced, and never run: here it is a hostile one that would
// vouch for itself (any `--verify` passes) and leaves a mark when it runs.
TEST(SshCommand, RemoteCommandReplacesACachedBinaryWithoutRunningIt) {
  Home home("verify");
  std::string bin_dir = home.path + "/.cache/muster/00000000000000aa";
  std::filesystem::create_directories(bin_dir);
  write_file(bin_dir + "/muster", "#!/bin/sh\ntouch \"$HOME/ran\"\nexit 0\n", 0700);
  std::string payload = "#!/bin/sh\necho fresh \"$@\"\n";
  SelfBinary binary{"/proc/self/exe", "00000000000000aa", payload.size(), sha256_hex(payload)};
  auto [code, out] = run_bootstrap(home.path, binary, payload);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out, "\nMUSTER-UPLOAD 00000000000000aa " + std::to_string(payload.size()) + "\nfresh agent --nonce n\n");
  EXPECT_FALSE(std::filesystem::exists(home.path + "/ran")) << "the candidate binary was run before it was checked";
  EXPECT_EQ(read_file(bin_dir + "/muster"), payload);
  EXPECT_EQ(std::filesystem::status(bin_dir + "/muster").permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
}

// A checked binary is not read again while it is unchanged (muster.checked records its SHA-256 with its inode, size,
// mtime and ctime); a change in place, even one that keeps its size, makes the next connection check it again
// and replace it.
TEST(SshCommand, RemoteCommandChecksAgainAfterAnyChange) {
  Home home("stamp");
  std::string payload = "#!/bin/sh\necho ok \"$@\"\n";
  SelfBinary binary{"/proc/self/exe", "00000000000000dd", payload.size(), sha256_hex(payload)};
  std::string bin = home.path + "/.cache/muster/00000000000000dd/muster";
  auto first = run_bootstrap(home.path, binary, payload);
  ASSERT_EQ(first.first, 0);
  EXPECT_EQ(first.second.find("MUSTER-UPLOAD"), 1u);
  auto second = run_bootstrap(home.path, binary, payload);
  EXPECT_EQ(second.second, "ok agent --nonce n\n");  // no upload
  {
    std::fstream damage(bin, std::ios::in | std::ios::out | std::ios::binary);
    damage.seekp(3);
    damage.put('X');  // same size, same first line
  }
  auto third = run_bootstrap(home.path, binary, payload);
  EXPECT_EQ(third.second.find("MUSTER-UPLOAD"), 1u) << third.second;
  EXPECT_EQ(read_file(bin), payload);
}

// An upload that does not hash to the head's SHA-256 is not put in place and not run.
TEST(SshCommand, RemoteCommandRefusesAnUploadWithTheWrongHash) {
  Home home("badupload");
  std::string payload = "#!/bin/sh\ntouch \"$HOME/ran\"\n";
  SelfBinary binary{"/proc/self/exe", "00000000000000bb", payload.size(), sha256_hex("something else")};
  auto [code, out] = run_bootstrap(home.path, binary, payload);
  EXPECT_EQ(code, 97);
  EXPECT_FALSE(std::filesystem::exists(home.path + "/ran"));
  EXPECT_FALSE(std::filesystem::exists(home.path + "/.cache/muster/00000000000000bb/muster"));
  EXPECT_TRUE(std::filesystem::is_empty(home.path + "/.cache/muster/00000000000000bb"));  // no temporary left
}

// The cache is created private (0700), and a cache directory or binary that others could write is refused with a
// message that names it and the fix; so is one that belongs to another user (checked as root in the cluster test).
TEST(SshCommand, RemoteCommandKeepsTheCachePrivate) {
  Home home("private");
  std::string payload = "#!/bin/sh\necho ok\n";
  SelfBinary binary{"/proc/self/exe", "00000000000000cc", payload.size(), sha256_hex(payload)};
  auto [code, out] = run_bootstrap(home.path, binary, payload);
  ASSERT_EQ(code, 0) << out;
  namespace fs = std::filesystem;
  for (const char* dir : {"/.cache/muster", "/.cache/muster/00000000000000cc"}) {
    EXPECT_EQ(fs::status(home.path + dir).permissions() & fs::perms::all, fs::perms::owner_all) << dir;
  }
  fs::permissions(home.path + "/.cache/muster", fs::perms::group_write, fs::perm_options::add);
  auto refused = run_bootstrap(home.path, binary, payload, /*stderr_too=*/true);
  EXPECT_EQ(refused.first, 96);
  EXPECT_NE(refused.second.find("muster: refusing " + home.path + "/.cache/muster: it is writable by its group or "
                                "others (mode 720)"),
            std::string::npos)
      << refused.second;
  EXPECT_NE(refused.second.find("chmod go-w"), std::string::npos) << refused.second;
  fs::permissions(home.path + "/.cache/muster", fs::perms::group_write, fs::perm_options::remove);
  fs::permissions(home.path + "/.cache/muster/00000000000000cc/muster", fs::perms::others_write, fs::perm_options::add);
  refused = run_bootstrap(home.path, binary, payload, true);
  EXPECT_EQ(refused.first, 96);
  EXPECT_NE(refused.second.find("/00000000000000cc/muster: it is writable by its group or others (mode 702)"),
            std::string::npos)
      << refused.second;
}

}  // namespace
}  // namespace muster::transport
