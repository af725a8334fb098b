#include "transport/ssh_cipher.h"

#include <gtest/gtest.h>

#include "posix/system_info.h"
#include "transport/ssh_command.h"

namespace muster::transport {
namespace {

std::vector<std::string> cipher_options(const std::vector<std::string>& argv) {
  std::vector<std::string> found;
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "-o" && argv[i + 1].rfind("Ciphers=", 0) == 0) found.push_back(argv[i + 1]);
  }
  return found;
}

TEST(SshCipher, AutoAsksForAesGcmFirstOnlyWhereTheCpuHasAesInstructions) {
  SshOptions options;  // as every command builds it unless told otherwise: "auto"
  options.cpu_has_aes = true;
  EXPECT_EQ(cipher_options(ssh_argv(options, "node1", "true")),
            std::vector<std::string>{std::string("Ciphers=") + kAesFirstCiphers});
  options.cpu_has_aes = false;  // chacha20 is then ssh's fast one, and its default order puts it first
  EXPECT_TRUE(cipher_options(ssh_argv(options, "node1", "true")).empty());
  // Exactly OpenSSH's default ciphers, reordered: nothing weaker than ssh's own choice.
  EXPECT_EQ(std::string(kAesFirstCiphers).rfind("aes128-gcm@openssh.com,", 0), 0u);
  EXPECT_EQ(std::string(kAesFirstCiphers).find("cbc"), std::string::npos);
}

TEST(SshCipher, DefaultLeavesTheChoiceToSshAndAListIsPassedAsIs) {
  SshOptions options;
  options.cpu_has_aes = true;
  options.cipher = kCipherDefault;
  EXPECT_TRUE(cipher_options(ssh_argv(options, "node1", "true")).empty());
  options.cipher = "chacha20-poly1305@openssh.com";
  EXPECT_EQ(cipher_options(ssh_argv(options, "node1", "true")),
            std::vector<std::string>{"Ciphers=chacha20-poly1305@openssh.com"});
}

TEST(SshCipher, ChoicesAreCheckedBeforeTheyReachAnSshOption) {
  EXPECT_TRUE(check_cipher_choice("auto"));
  EXPECT_TRUE(check_cipher_choice("default"));
  EXPECT_TRUE(check_cipher_choice("aes256-gcm@openssh.com,aes128-ctr"));
  auto bad = check_cipher_choice("aes128-gcm@openssh.com -oProxyCommand=x");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find(kCipherEnv), std::string::npos);
  EXPECT_FALSE(check_cipher_choice("aes128-ctr,"));
}

TEST(SshCipher, CpuinfoFlagsOfX86AndFeaturesOfArm) {
  EXPECT_TRUE(posix::cpuinfo_has_aes("processor\t: 0\nflags\t\t: fpu sse2 aes avx2\n"));
  EXPECT_FALSE(posix::cpuinfo_has_aes("processor\t: 0\nflags\t\t: fpu sse2 avx2 vaes_x\n"));
  EXPECT_TRUE(posix::cpuinfo_has_aes("processor\t: 0\nFeatures\t: fp asimd aes pmull sha1\n"));
  EXPECT_FALSE(posix::cpuinfo_has_aes("processor\t: 0\nFeatures\t: fp asimd\n"));
  EXPECT_FALSE(posix::cpuinfo_has_aes(""));
}

}  // namespace
}  // namespace muster::transport
