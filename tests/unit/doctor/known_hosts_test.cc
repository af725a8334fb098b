#include "doctor/ssh/known_hosts.h"

#include <gtest/gtest.h>

#include "util/hmac_sha1.h"

namespace muster::doctor {
namespace {

TEST(KnownHosts, LookupName) {
  EXPECT_EQ(known_hosts_name("Node2", "22", ""), "node2");
  EXPECT_EQ(known_hosts_name("10.0.0.3", "2222", ""), "[10.0.0.3]:2222");
  EXPECT_EQ(known_hosts_name("10.0.0.3", "2222", "gpu3"), "gpu3");
}

TEST(KnownHosts, PlainPatterns) {
  EXPECT_TRUE(known_hosts_field_matches("node2,10.0.0.12", "node2"));
  EXPECT_TRUE(known_hosts_field_matches("node2,10.0.0.12", "10.0.0.12"));
  EXPECT_FALSE(known_hosts_field_matches("node2,10.0.0.12", "node20"));
  EXPECT_TRUE(known_hosts_field_matches("NODE2", "node2"));
  EXPECT_TRUE(known_hosts_field_matches("node*", "node17"));
  EXPECT_TRUE(known_hosts_field_matches("node?", "node7"));
  EXPECT_FALSE(known_hosts_field_matches("node?", "node17"));
  EXPECT_FALSE(known_hosts_field_matches("node*,!node3", "node3"));
  EXPECT_TRUE(known_hosts_field_matches("node*,!node3", "node4"));
  EXPECT_TRUE(known_hosts_field_matches("[node3]:2222", "[node3]:2222"));
  EXPECT_FALSE(known_hosts_field_matches("node3", "[node3]:2222"));
}

// Made by `ssh-keygen -H` from "node2 ..." and "[node3]:2222 ...".
TEST(KnownHosts, HashedEntries) {
  EXPECT_TRUE(known_hosts_field_matches("|1|G8vxMOEM8dmrsrmVJCx+/Kz1UCk=|cskK/5UMtq7WVN8caa5CfERNFZM=", "node2"));
  EXPECT_FALSE(known_hosts_field_matches("|1|G8vxMOEM8dmrsrmVJCx+/Kz1UCk=|cskK/5UMtq7WVN8caa5CfERNFZM=", "node3"));
  EXPECT_TRUE(known_hosts_field_matches("|1|wLw6Glu1oI4SZxUem7I6FJCg/Aw=|KklM+IygoA2/O39SibhPs8cJQD8=", "[node3]:2222"));
  EXPECT_FALSE(known_hosts_field_matches("|1|not base64!|x", "node2"));
}

// RFC 2202, test case 2.
TEST(KnownHosts, HmacSha1) {
  EXPECT_EQ(base64_encode(hmac_sha1("Jefe", "what do ya want for nothing?")), "7/zfauXrL6LSdBbV8YTfnCWafHk=");
  EXPECT_EQ(base64_decode("aGVsbG8="), "hello");
  EXPECT_FALSE(base64_decode("a$b").has_value());
}

}  // namespace
}  // namespace muster::doctor
