#include "transport/ssh_kex.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "transport/ssh_command.h"

namespace muster::transport {
namespace {

std::vector<std::string> kex_options(const std::vector<std::string>& argv) {
  std::vector<std::string> found;
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-o" && argv[i + 1].rfind("KexAlgorithms=", 0) == 0) found.push_back(argv[i + 1]);
  }
  return found;
}

TEST(SshKex, FastIsTheDefaultAndReachesTheCommandLine) {
  SshOptions options;  // as every command builds it unless told otherwise
  auto argv = ssh_argv(options, "node1", "true");
  EXPECT_EQ(kex_options(argv), std::vector<std::string>{std::string("KexAlgorithms=") + kFastKex});
  // Classic methods only, curve25519 first; no post-quantum hybrid (their names contain "sntrup" / "mlkem").
  EXPECT_EQ(std::string(kFastKex).rfind("curve25519-sha256,", 0), 0u);
  EXPECT_EQ(std::string(kFastKex).find("sntrup"), std::string::npos);
  EXPECT_EQ(std::string(kFastKex).find("mlkem"), std::string::npos);
}

TEST(SshKex, DefaultLeavesTheChoiceToSshAndAListIsPassedAsIs) {
  SshOptions options;
  options.kex = kKexDefault;
  EXPECT_TRUE(kex_options(ssh_argv(options, "node1", "true")).empty());
  options.kex = "ecdh-sha2-nistp256,curve25519-sha256";
  EXPECT_EQ(kex_options(ssh_argv(options, "node1", "true")),
            std::vector<std::string>{"KexAlgorithms=ecdh-sha2-nistp256,curve25519-sha256"});
}

TEST(SshKex, TheUsersOwnOptionComesFirstSoSshKeepsIt) {
  SshOptions options;
  options.extra_options = {"KexAlgorithms=diffie-hellman-group14-sha256"};
  auto found = kex_options(ssh_argv(options, "node1", "true"));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found.front(), "KexAlgorithms=diffie-hellman-group14-sha256");
  EXPECT_TRUE(sets_kex(options.extra_options));
  EXPECT_TRUE(sets_kex({"kexalgorithms curve25519-sha256"}));
  EXPECT_FALSE(sets_kex({"KexAlgorithmsX=1", "Port=22"}));
}

// ssh must say why a key exchange failed even where an ssh_config quiets it (LogLevel ERROR), so the retry sees it.
TEST(SshKex, SshLogsAtInfoUnlessTheUserSaysOtherwise) {
  SshOptions options;
  auto argv = ssh_argv(options, "node1", "true");
  EXPECT_NE(std::find(argv.begin(), argv.end(), "LogLevel=INFO"), argv.end());
  options.extra_options = {"LogLevel=QUIET"};
  argv = ssh_argv(options, "node1", "true");
  EXPECT_LT(std::find(argv.begin(), argv.end(), "LogLevel=QUIET"), std::find(argv.begin(), argv.end(), "LogLevel=INFO"));
}

TEST(SshKex, ChecksTheChoice) {
  EXPECT_TRUE(check_kex_choice("fast"));
  EXPECT_TRUE(check_kex_choice("default"));
  EXPECT_TRUE(check_kex_choice("curve25519-sha256@libssh.org,sntrup761x25519-sha512@openssh.com"));
  for (const char* bad : {"a b", "x;rm", "curve25519-sha256,", ",x", "a,,b", "Port=22", "x\ny"}) {
    auto checked = check_kex_choice(bad);
    ASSERT_FALSE(checked) << bad;
    EXPECT_EQ(checked.error().kind, ErrorKind::usage);
    EXPECT_NE(checked.error().message.find(kKexEnv), std::string::npos);
  }
}

// What OpenSSH prints when the server accepts none of the offered methods, or the client does not know one.
TEST(SshKex, TellsARefusedKeyExchangeFromOtherFailures) {
  EXPECT_TRUE(kex_refused("Unable to negotiate with 10.0.0.3 port 22: no matching key exchange method found. "
                          "Their offer: sntrup761x25519-sha512@openssh.com\n"));
  EXPECT_TRUE(kex_refused("command-line line 0: Bad SSH2 KexAlgorithms 'curve25519-sha256'.\n"));
  EXPECT_FALSE(kex_refused("ssh: connect to host node3 port 22: Connection refused\n"));
  EXPECT_FALSE(kex_refused("root@node3: Permission denied (publickey).\n"));
  EXPECT_FALSE(kex_refused(""));
}

}  // namespace
}  // namespace muster::transport
