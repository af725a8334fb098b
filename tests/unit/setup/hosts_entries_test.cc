#include "setup/hosts_entries.h"

#include <gtest/gtest.h>

namespace muster::setup {
namespace {

TEST(HostsEntries, GoodLines) {
  EXPECT_EQ(*hosts_entry("node1", "10.0.0.1", {"node1", "gpu-01.cluster"}), "10.0.0.1 node1 gpu-01.cluster");
  EXPECT_EQ(*hosts_entry("n", "fd00::1", {"n"}), "fd00::1 n");
  EXPECT_TRUE(check_hosts_entry("10.0.0.1 node1 gpu-01"));
}

TEST(HostsEntries, ANameWithANewlineOrSpacesIsRefused) {
  auto injected = hosts_entry("node2", "10.0.0.2", {"node2", "evil\n10.0.0.66 login.example.com"});
  ASSERT_FALSE(injected);
  EXPECT_EQ(injected.error().kind, ErrorKind::remote);
  EXPECT_NE(injected.error().message.find("node2 reports the host name 'evil\\x0a10.0.0.66 login.example.com'"),
            std::string::npos)
      << injected.error().message;
  EXPECT_NE(injected.error().message.find("refusing to write it into /etc/hosts"), std::string::npos);
  EXPECT_FALSE(hosts_entry("node2", "10.0.0.2", {"a b"}));
  EXPECT_FALSE(hosts_entry("node2", "10.0.0.2", {"#comment"}));
  EXPECT_FALSE(hosts_entry("node2", "10.0.0.2", {""}));
}

TEST(HostsEntries, AnAddressThatIsNotOneIsRefused) {
  for (const char* bad : {"10.0.0.2 bank", "10.0.0.2\n10.0.0.66", "not-an-ip", "", "10.0.0.256", "1::2::3"}) {
    auto refused = hosts_entry("node3", bad, {"node3"});
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().message.find("which is not an IPv4 or IPv6 address"), std::string::npos);
  }
}

TEST(HostsEntries, TheNodeChecksEveryLineItIsGiven) {
  EXPECT_FALSE(check_hosts_entry("10.0.0.1"));
  EXPECT_FALSE(check_hosts_entry("10.0.0.1  node1"));   // an empty name between the spaces
  EXPECT_FALSE(check_hosts_entry("10.0.0.1 node1\n10.0.0.66 bank"));
  EXPECT_FALSE(check_hosts_entry("bank 10.0.0.1"));
}

}  // namespace
}  // namespace muster::setup
