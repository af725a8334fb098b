#include "setup/file_edits.h"

#include <gtest/gtest.h>

namespace muster::setup {
namespace {

const std::string kDebianHosts =
    "127.0.0.1\tlocalhost\n"
    "127.0.1.1\tnode1.example node1\n"
    "\n"
    "# The following lines are desirable for IPv6 capable hosts\n"
    "::1     localhost ip6-localhost ip6-loopback\n";

std::string block(const std::vector<std::string>& lines) {
  std::string text = std::string(kBlockBegin) + "\n";
  for (const auto& line : lines) text += line + "\n";
  return text + std::string(kBlockEnd) + "\n";
}

TEST(HostsBlock, AppendsTheBlockAndKeepsEverythingElse) {
  std::vector<std::string> lines = {"10.0.0.1 node1", "10.0.0.2 node2"};
  std::string result = apply_hosts_block(kDebianHosts, lines, false, "node1");
  EXPECT_EQ(result, kDebianHosts + block(lines));
}

TEST(HostsBlock, IsIdempotent) {
  std::vector<std::string> lines = {"10.0.0.1 node1", "10.0.0.2 node2"};
  std::string once = apply_hosts_block(kDebianHosts, lines, false, "node1");
  EXPECT_EQ(apply_hosts_block(once, lines, false, "node1"), once);
}

TEST(HostsBlock, ReplacesAnExistingBlockInPlace) {
  std::string before = "127.0.0.1 localhost\n" + block({"10.0.0.9 old"}) + "192.168.1.5 printer\n";
  std::string after = apply_hosts_block(before, {"10.0.0.1 node1"}, false, "node1");
  EXPECT_EQ(after, "127.0.0.1 localhost\n" + block({"10.0.0.1 node1"}) + "192.168.1.5 printer\n");
}

TEST(HostsBlock, FixLoopbackDropsOnlyTheOwnName) {
  std::string result = apply_hosts_block(kDebianHosts, {"10.0.0.1 node1"}, true, "node1");
  EXPECT_NE(result.find("127.0.1.1 node1.example\n"), std::string::npos) << result;
  EXPECT_EQ(result.find("127.0.1.1\tnode1.example node1"), std::string::npos);
  EXPECT_FALSE(has_loopback_self_mapping(result, "node1"));
  std::string alone = apply_hosts_block("127.0.1.1 node1\n", {"10.0.0.1 node1"}, true, "node1");
  EXPECT_EQ(alone, block({"10.0.0.1 node1"}));
}

TEST(HostsBlock, DetectsTheLoopbackTrap) {
  EXPECT_TRUE(has_loopback_self_mapping(kDebianHosts, "node1"));
  EXPECT_FALSE(has_loopback_self_mapping(kDebianHosts, "node2"));
  EXPECT_FALSE(has_loopback_self_mapping("127.0.0.1 localhost node1\n", "node1"));  // 127.0.0.1 is fine
  EXPECT_FALSE(has_loopback_self_mapping("# 127.0.1.1 node1\n", "node1"));          // a comment
}

TEST(AddMissingLines, AppendsOnlyWhatIsMissing) {
  EXPECT_EQ(add_missing_lines("", {"a", "b"}), "a\nb\n");
  EXPECT_EQ(add_missing_lines("a\n", {"a", "b", "b"}), "a\nb\n");
  EXPECT_EQ(add_missing_lines("x\na", {"b"}), "x\na\nb\n");  // a missing final newline is added first
  std::string keys = "ssh-ed25519 AAAA user@head\n";
  EXPECT_EQ(add_missing_lines(keys, {"ssh-ed25519 AAAA user@head"}), keys);
}

}  // namespace
}  // namespace muster::setup
