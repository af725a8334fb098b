#include "logs/prefix.h"

#include <gtest/gtest.h>

namespace muster::logs {
namespace {

Source source(int rank, std::string node = "node1", int stream = kStdout) {
  return Source{rank, rank % 4, rank / 4, std::move(node), stream};
}

TEST(PrefixFormat, DefaultFormat) {
  EXPECT_EQ(PrefixFormat().render(source(3)), "[node1:3] ");
}

TEST(PrefixFormat, RankIsPaddedToTheWidestRank) {
  auto format = PrefixFormat::parse(PrefixFormat::kDefault, PrefixLayout{.world_size = 16});
  ASSERT_TRUE(format);
  EXPECT_EQ(format->render(source(3)), "[node1: 3] ");
  EXPECT_EQ(format->render(source(15)), "[node1:15] ");
  auto ten = PrefixFormat::parse("{rank}|", PrefixLayout{.world_size = 10});
  EXPECT_EQ(ten->render(source(9)), "9|");
  auto big = PrefixFormat::parse("{rank}|", PrefixLayout{.world_size = 1001});
  EXPECT_EQ(big->render(source(7)), "   7|");
}

TEST(PrefixFormat, AllPlaceholdersAndBraces) {
  auto format = PrefixFormat::parse(
      "{{{node}}} r{rank} l{local_rank} n{node_rank} {stream}: ",
      PrefixLayout{.world_size = 32, .node_count = 8, .max_local_ranks = 4, .node_name_width = 7});
  ASSERT_TRUE(format) << format.error().message;
  EXPECT_EQ(format->render(source(6, "gpu1", kStderr)), "{gpu1   } r 6 l2 n1 err: ");
  EXPECT_EQ(format->render(source(17, "gpu-long", kStdout)), "{gpu-long} r17 l1 n4 out: ");
}

TEST(PrefixFormat, UnknownPlaceholderIsNamedWithASuggestion) {
  auto format = PrefixFormat::parse("[{nod}:{rank}] ");
  ASSERT_FALSE(format);
  EXPECT_EQ(format.error().kind, ErrorKind::usage);
  EXPECT_NE(format.error().message.find("unknown placeholder {nod} (did you mean {node}?)"),
            std::string::npos)
      << format.error().message;
  auto other = PrefixFormat::parse("{hostname}");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("unknown placeholder {hostname};"), std::string::npos)
      << other.error().message;
}

TEST(PrefixFormat, UnbalancedBraces) {
  auto open = PrefixFormat::parse("[{rank");
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().message.find("without its '}'"), std::string::npos);
  auto close = PrefixFormat::parse("rank}");
  ASSERT_FALSE(close);
  EXPECT_NE(close.error().message.find("lone '}'"), std::string::npos);
  auto empty = PrefixFormat::parse("{}");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("unknown placeholder {}"), std::string::npos);
}

}  // namespace
}  // namespace muster::logs
