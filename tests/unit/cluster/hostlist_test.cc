#include "cluster/hostlist.h"

#include <gtest/gtest.h>

namespace muster::cluster {
namespace {

using Names = std::vector<std::string>;

Names expand_ok(std::string_view expr) {
  auto names = expand_hostlist(expr);
  EXPECT_TRUE(names.has_value()) << names.error().message;
  return names ? *names : Names{};
}

std::string expand_error(std::string_view expr) {
  auto names = expand_hostlist(expr);
  EXPECT_FALSE(names.has_value());
  return names ? "" : names.error().message;
}

TEST(ExpandHostlist, PlainNamesInOrder) {
  EXPECT_EQ(expand_ok("node2,node1,gpu.example.com"), (Names{"node2", "node1", "gpu.example.com"}));
  EXPECT_EQ(expand_ok(" node1 , node2 "), (Names{"node1", "node2"}));
}

TEST(ExpandHostlist, BracketRangesKeepTheLowerBoundsPadding) {
  EXPECT_EQ(expand_ok("node[01-03,07]"), (Names{"node01", "node02", "node03", "node07"}));
  EXPECT_EQ(expand_ok("node[08-11]"), (Names{"node08", "node09", "node10", "node11"}));
  EXPECT_EQ(expand_ok("node[9-11]"), (Names{"node9", "node10", "node11"}));
  EXPECT_EQ(expand_ok("n[001-002]x"), (Names{"n001x", "n002x"}));
  EXPECT_EQ(expand_ok("node[3]"), (Names{"node3"}));
}

TEST(ExpandHostlist, CommasInsideBracketsBelongToTheBracket) {
  EXPECT_EQ(expand_ok("a[1,3],b[2-3],c"), (Names{"a1", "a3", "b2", "b3", "c"}));
}

TEST(ExpandHostlist, SeveralGroupsAreACartesianProductFirstGroupSlowest) {
  EXPECT_EQ(expand_ok("rack[1-2]-gpu[01-02]"),
            (Names{"rack1-gpu01", "rack1-gpu02", "rack2-gpu01", "rack2-gpu02"}));
}

TEST(ExpandHostlist, UserPrefixIsKeptOnEveryName) {
  EXPECT_EQ(expand_ok("alice@node[1-3]"), (Names{"alice@node1", "alice@node2", "alice@node3"}));
}

TEST(ExpandHostlist, ExclusionsApplyToTheWholeResult) {
  EXPECT_EQ(expand_ok("node[1-5],-node3"), (Names{"node1", "node2", "node4", "node5"}));
  EXPECT_EQ(expand_ok("-node[2-3],node[1-4]"), (Names{"node1", "node4"}));
  EXPECT_EQ(expand_ok("alice@node[1-3],-node2"), (Names{"alice@node1", "alice@node3"}));
  EXPECT_EQ(expand_ok("alice@node[1-2],bob@node1,-bob@node1"), (Names{"alice@node1", "alice@node2"}));
  EXPECT_EQ(expand_ok("node1,-node9"), (Names{"node1"}));
}

TEST(ExpandHostlist, DuplicatesKeepTheFirstOccurrence) {
  EXPECT_EQ(expand_ok("node[1-3],node2,node0,node1"), (Names{"node1", "node2", "node3", "node0"}));
}

TEST(ExpandHostlist, ErrorsNameTheColumn) {
  EXPECT_EQ(expand_error("node[5-1]"),
            "hostlist \"node[5-1]\", column 6: range '5-1' counts down; write the lower number first");
  EXPECT_EQ(expand_error("node[1-x]"), "hostlist \"node[1-x]\", column 8: expected a number, found 'x'");
  EXPECT_EQ(expand_error("node[1-3"), "hostlist \"node[1-3\", column 9: expected ',' or ']', found nothing");
  EXPECT_EQ(expand_error("node1]"), "hostlist \"node1]\", column 6: found ']' without a '[' before it");
  EXPECT_EQ(expand_error("node1,,node2"),
            "hostlist \"node1,,node2\", column 7: expected a host name, found ','");
  EXPECT_EQ(expand_error("node1,"), "hostlist \"node1,\", column 7: expected a host name, found nothing");
  EXPECT_EQ(expand_error(""), "hostlist \"\", column 1: expected a host name, found nothing");
  EXPECT_EQ(expand_error("no!de"), "hostlist \"no!de\", column 3: invalid character '!' in host name");
  EXPECT_EQ(expand_error("node 1"),
            "hostlist \"node 1\", column 6: expected ',' or the end of the hostlist, found '1'");
  EXPECT_EQ(expand_error("a,.b"), "hostlist \"a,.b\", column 3: host name '.b' must not start with '.'");
  EXPECT_EQ(expand_error("u@"), "hostlist \"u@\", column 1: expected a host name, found nothing");
  EXPECT_EQ(expand_error("n[1234567890123456789]"),
            "hostlist \"n[1234567890123456789]\", column 3: number has more than 18 digits");
}

TEST(ExpandHostlist, RefusesHugeExpansionsBeforeBuildingThem) {
  EXPECT_EQ(expand_ok("n[1-100000]").size(), 100000u);
  EXPECT_EQ(expand_error("n[1-100001]"),
            "hostlist \"n[1-100001]\", column 1: expands to more than 100000 hosts");
  EXPECT_EQ(expand_error("a,n[1-1000]x[1-1000]"),
            "hostlist \"a,n[1-1000]x[1-1000]\", column 3: expands to more than 100000 hosts");
  EXPECT_EQ(expand_error("n[0-999999999999999999]"),
            "hostlist \"n[0-999999999999999999]\", column 1: expands to more than 100000 hosts");
  EXPECT_EQ(expand_error("n[1-60000],-m[1-60000]"),
            "hostlist \"n[1-60000],-m[1-60000]\", column 13: expands to more than 100000 hosts");
}

TEST(ExpandHostlist, NamesThatGrowTooLongAreRefused) {
  std::string expr = std::string(250, 'a') + "[1-1000]";
  EXPECT_EQ(expand_error(expr).substr(expr.size() + 23), "host name is 254 characters long, more than 253");
}

TEST(CompressHostlist, SlurmStyleKeepingOrder) {
  EXPECT_EQ(compress_hostlist({"node01", "node02", "node03", "node07", "gpu1"}), "node[01-03,07],gpu1");
  EXPECT_EQ(compress_hostlist({"node9", "node10", "node11"}), "node[9-11]");
  EXPECT_EQ(compress_hostlist({"node3", "node1", "node2"}), "node[3,1-2]");
  EXPECT_EQ(compress_hostlist({"a1", "b1", "a2"}), "a1,b1,a2");
  EXPECT_EQ(compress_hostlist({"login", "node1", "node2"}), "login,node[1-2]");
  EXPECT_EQ(compress_hostlist({"gpu01.lan", "gpu02.lan"}), "gpu[01-02].lan");
  EXPECT_EQ(compress_hostlist({"node1", "node01"}), "node[1,01]");
  EXPECT_EQ(compress_hostlist({}), "");
}

TEST(CompressHostlist, RoundTripsThroughExpand) {
  std::vector<Names> cases{
      {"node01", "node02", "node03", "node07", "gpu1"},
      {"node9", "node10", "node08", "node09", "node010"},
      {"alice@n1", "alice@n2", "bob@n3", "rack1-gpu01", "rack1-gpu02", "rack2-gpu01"},
      {"x", "y1", "y2", "y0", "10.0.0.1", "10.0.0.2"},
      {"node0", "node00", "node000", "node1"},
  };
  for (const Names& names : cases) {
    std::string compressed = compress_hostlist(names);
    EXPECT_EQ(expand_ok(compressed), names) << compressed;
  }
  Names big = expand_ok("r[1-4]-g[000-127]");
  EXPECT_EQ(compress_hostlist(big), "r1-g[000-127],r2-g[000-127],r3-g[000-127],r4-g[000-127]");
  EXPECT_EQ(expand_ok(compress_hostlist(big)), big);
}

TEST(ExcludeHosts, RemovesMatchingNamesAndIgnoresTheRest) {
  Names hosts{"node1", "alice@node2", "node3", "node4"};
  auto kept = exclude_hosts(hosts, "node[2-3],node9");
  ASSERT_TRUE(kept.has_value()) << kept.error().message;
  EXPECT_EQ(*kept, (Names{"node1", "node4"}));
  EXPECT_EQ(*exclude_hosts(hosts, ""), hosts);
  EXPECT_EQ(*exclude_hosts(hosts, "bob@node2"), hosts);
}

TEST(ExcludeHosts, ReportsABadExpression) {
  auto kept = exclude_hosts({"node1"}, "node[");
  ASSERT_FALSE(kept.has_value());
  EXPECT_EQ(kept.error().message, "excluded hosts \"node[\", column 6: expected a number, found nothing");
}

}  // namespace
}  // namespace muster::cluster
