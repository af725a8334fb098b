#include "transport/ssh_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "util/shell_quote.h"

namespace muster::transport {
namespace {

bool has_option(const std::vector<std::string>& argv, const std::string& value) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-o" && argv[i + 1] == value) return true;
  }
  return false;
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
  EXPECT_TRUE(has_option(argv, "ControlPath=/home/u/.cache/muster/ssh/%C"));
  EXPECT_TRUE(has_option(argv, "Port=2222"));
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-T"), argv.end());  // never a tty: it would mangle frames
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[argv.size() - 3], "--");
  EXPECT_EQ(argv[argv.size() - 2], "alice@gpu1");
  EXPECT_EQ(argv.back(), "true");
}

TEST(SshCommand, PrefersAesGcmButTheUsersOptionsComeFirstAndWin) {
  SshOptions options;
  options.extra_options = {"Ciphers=aes256-ctr", "BatchMode=no"};
  auto argv = ssh_argv(options, "node1", "true");
  EXPECT_TRUE(has_option(argv, std::string("Ciphers=") + kPreferredCiphers));
  // ssh keeps the first value of an option: the user's must come before muster's.
  auto position = [&](const std::string& value) {
    return std::find(argv.begin(), argv.end(), value) - argv.begin();
  };
  EXPECT_LT(position("Ciphers=aes256-ctr"), position(std::string("Ciphers=") + kPreferredCiphers));
  EXPECT_LT(position("BatchMode=no"), position("BatchMode=yes"));
  options.prefer_aes_gcm = false;
  argv = ssh_argv(options, "node1", "true");
  EXPECT_FALSE(has_option(argv, std::string("Ciphers=") + kPreferredCiphers));
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
  SelfBinary binary{"/proc/self/exe", "0123456789abcdef", 42};
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
  SelfBinary binary{"/proc/self/exe", "fedcba9876543210", payload.size()};
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

// A cached binary that does not verify (here: one that fails `agent --verify`) is deleted and uploaded again.
TEST(SshCommand, RemoteCommandReplacesACachedBinaryThatFailsVerification) {
  char dir_template[] = "/tmp/muster-ssh-verify-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  std::string home = dir_template;
  std::string bin_dir = home + "/.cache/muster/00000000000000aa";
  std::filesystem::create_directories(bin_dir);
  {
    std::ofstream damaged(bin_dir + "/muster");
    damaged << "#!/bin/sh\nexit 1\n";  // fails --verify, and would fail as an agent too
  }
  std::filesystem::permissions(bin_dir + "/muster", std::filesystem::perms::owner_all);
  std::string payload = "#!/bin/sh\necho fresh \"$@\"\n";
  SelfBinary binary{"/proc/self/exe", "00000000000000aa", payload.size()};
  std::string input_file = home + "/input";
  {
    std::ofstream input(input_file, std::ios::binary);
    input << payload;
  }
  std::string command = remote_agent_command(binary, {"--nonce", "n"});
  FILE* pipe = popen(("env -u XDG_CACHE_HOME HOME=" + home + " sh -c " + shell_quote(command) + " < " + input_file)
                         .c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[512] = {};
  size_t n = fread(buffer, 1, sizeof buffer - 1, pipe);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(std::string(buffer, n), "\nMUSTER-UPLOAD 00000000000000aa " + std::to_string(payload.size()) +
                                        "\nfresh agent --nonce n\n");
  std::filesystem::remove_all(home);
}

}  // namespace
}  // namespace muster::transport
