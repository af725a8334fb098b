#include "cluster/host_name.h"

#include <gtest/gtest.h>

namespace muster::cluster {
namespace {

TEST(HostName, AcceptsDnsNamesAndAddresses) {
  EXPECT_FALSE(check_host_name("node1"));
  EXPECT_FALSE(check_host_name("gpu-01.cluster.example.com"));
  EXPECT_FALSE(check_host_name("10.0.0.1"));
  EXPECT_FALSE(check_host_name("my_host"));
  EXPECT_FALSE(check_destination("alice@node1"));
}

TEST(HostName, RefusalsSayWhereAndWhy) {
  auto problem = check_host_name("no de");
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->offset, 2u);
  EXPECT_EQ(problem->message, "invalid character ' ' in host name 'no de'");
  EXPECT_EQ(check_host_name(".node")->message, "host name '.node' must not start with '.'");
  EXPECT_EQ(check_host_name(std::string(254, 'a'))->message,
            "host name is 254 characters long, more than 253");
  EXPECT_EQ(check_user_name("-u")->message, "user name '-u' must not start with '-'");
  EXPECT_EQ(check_destination("alice@")->offset, 6u);
  EXPECT_EQ(check_destination("alice@")->message, "expected a host name, found nothing");
  EXPECT_EQ(check_destination("al:ce@node")->message, "invalid character ':' in user name 'al:ce'");
}

}  // namespace
}  // namespace muster::cluster
