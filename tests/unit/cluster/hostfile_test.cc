#include "cluster/hostfile.h"

#include <gtest/gtest.h>

namespace muster::cluster {
namespace {

Host make_host(std::string name, int slots = -1, int max_slots = -1, std::string user = "") {
  Host host;
  host.name = std::move(name);
  host.user = std::move(user);
  host.slots = slots;
  host.max_slots = max_slots;
  return host;
}

std::vector<Host> parse_ok(std::string_view text) {
  auto hosts = parse_hostfile(text, "hosts.txt");
  EXPECT_TRUE(hosts.has_value()) << hosts.error().message;
  return hosts ? *hosts : std::vector<Host>{};
}

std::string parse_error(std::string_view text) {
  auto hosts = parse_hostfile(text, "hosts.txt");
  EXPECT_FALSE(hosts.has_value());
  if (hosts) return "";
  EXPECT_EQ(hosts.error().kind, ErrorKind::parse);
  return hosts.error().message;
}

TEST(Hostfile, DeepSpeedForm) {
  EXPECT_EQ(parse_ok("node1 slots=8\nnode2 slots=4\n"),
            (std::vector<Host>{make_host("node1", 8), make_host("node2", 4)}));
}

TEST(Hostfile, OpenMpiMaxSlotsInEitherOrder) {
  EXPECT_EQ(parse_ok("a slots=2 max_slots=4\nb max_slots=6 slots=3\nc max_slots=2\n"),
            (std::vector<Host>{make_host("a", 2, 4), make_host("b", 3, 6), make_host("c", -1, 2)}));
}

TEST(Hostfile, ColonSlotsUserAndBareHost) {
  EXPECT_EQ(
      parse_ok("alice@node1:4\nnode2\n10.0.0.7:2\n"),
      (std::vector<Host>{make_host("node1", 4, -1, "alice"), make_host("node2"), make_host("10.0.0.7", 2)}));
}

TEST(Hostfile, CommentsBlankLinesWhitespaceAndCrlf) {
  std::string_view text =
      "# cluster A\r\n"
      "\r\n"
      "  \tnode1\tslots=2   # the fast one\r\n"
      "   \r\n"
      "node2 slots=1#tight\r\n"
      "node3";
  EXPECT_EQ(parse_ok(text),
            (std::vector<Host>{make_host("node1", 2), make_host("node2", 1), make_host("node3")}));
}

TEST(Hostfile, ErrorsNameFileLineAndColumn) {
  EXPECT_EQ(parse_error("node1 slots=2\n\nnode2 slots=x\n"),
            "hosts.txt:3:13: expected a number after 'slots=', found 'x'");
  EXPECT_EQ(parse_error("node1 slots=\n"), "hosts.txt:1:13: expected a number after 'slots=', found nothing");
  EXPECT_EQ(parse_error("node1 slots=-1\n"), "hosts.txt:1:13: expected a number after 'slots=', found '-1'");
  EXPECT_EQ(parse_error("node1:x\n"), "hosts.txt:1:7: expected a number after ':', found 'x'");
}

TEST(Hostfile, RefusesDuplicateHostNamingTheFirstLine) {
  EXPECT_EQ(parse_error("node1 slots=2\n# spare\n  node2\nnode1 slots=4\n"),
            "hosts.txt:4:1: host 'node1' is listed twice (first on line 1)");
  EXPECT_EQ(parse_error("node1\n  bob@node1\n"),
            "hosts.txt:2:3: host 'node1' is listed twice (first on line 1)");
}

TEST(Hostfile, RefusesBadSlotCounts) {
  EXPECT_EQ(parse_error("node1 slots=0\n"), "hosts.txt:1:13: slots must be at least 1, found 0");
  EXPECT_EQ(parse_error("node1:0\n"), "hosts.txt:1:7: slots must be at least 1, found 0");
  EXPECT_EQ(parse_error("node1 slots=4 max_slots=2\n"), "hosts.txt:1:15: max_slots=2 is less than slots=4");
  EXPECT_EQ(parse_error("node1 max_slots=2 slots=4\n"), "hosts.txt:1:7: max_slots=2 is less than slots=4");
  EXPECT_EQ(parse_error("node1 slots=99999999999\n"),
            "hosts.txt:1:13: slots 99999999999 is more than 1000000");
  EXPECT_EQ(parse_error("node1:2 slots=2\n"), "hosts.txt:1:9: slots is given twice for this host");
}

TEST(Hostfile, RefusesUnknownKeysAndGarbage) {
  EXPECT_EQ(parse_error("node1 foo=1\n"),
            "hosts.txt:1:7: unknown key 'foo' (expected 'slots' or 'max_slots')");
  EXPECT_EQ(parse_error("node1 slots=2 gpus\n"),
            "hosts.txt:1:15: expected 'slots=N' or 'max_slots=N', found 'gpus'");
}

TEST(Hostfile, RefusesInvalidHostNames) {
  EXPECT_EQ(parse_error("\nno!de slots=1\n"), "hosts.txt:2:3: invalid character '!' in host name 'no!de'");
  EXPECT_EQ(parse_error("-node\n"), "hosts.txt:1:1: host name '-node' must not start with '-'");
  EXPECT_EQ(parse_error("@node\n"), "hosts.txt:1:1: expected a user name, found nothing");
  EXPECT_EQ(parse_error("a@b@c\n"), "hosts.txt:1:4: invalid character '@' in host name 'b@c'");
  EXPECT_EQ(parse_error(":4\n"), "hosts.txt:1:1: expected a host name, found nothing");
  EXPECT_EQ(parse_error("node\x01\n"), "hosts.txt:1:5: invalid character '\\x01' in host name 'node\x01'");
}

TEST(Hostfile, RefusesAFileWithoutHosts) {
  EXPECT_EQ(parse_error("# nothing here\n\n"),
            "hosts.txt: no hosts listed (expected lines like 'node1 slots=8')");
  EXPECT_EQ(parse_error(""), "hosts.txt: no hosts listed (expected lines like 'node1 slots=8')");
}

TEST(Hostfile, FormatIsDeepSpeedForm) {
  std::vector<Host> hosts{make_host("node1", 8), make_host("node2", 2, 4, "bob"), make_host("node3")};
  EXPECT_EQ(format_hostfile(hosts), "node1 slots=8\nbob@node2 slots=2 max_slots=4\nnode3\n");
}

TEST(Hostfile, FormatRoundTripsThroughParse) {
  std::vector<Host> hosts{make_host("gpu01", 8, 16, "alice"), make_host("gpu02", 1),
                          make_host("gpu03", -1, 3), make_host("10.1.2.3")};
  EXPECT_EQ(parse_ok(format_hostfile(hosts)), hosts);
}

TEST(Host, DestinationHasUserOnlyWhenGiven) {
  EXPECT_EQ(make_host("node1").destination(), "node1");
  EXPECT_EQ(make_host("node1", -1, -1, "alice").destination(), "alice@node1");
  EXPECT_EQ(host_from_destination("alice@node1"), make_host("node1", -1, -1, "alice"));
  EXPECT_EQ(host_from_destination("node1"), make_host("node1"));
}

}  // namespace
}  // namespace muster::cluster
