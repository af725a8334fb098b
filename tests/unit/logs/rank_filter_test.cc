#include "logs/rank_filter.h"

#include <gtest/gtest.h>

namespace muster::logs {
namespace {

std::vector<int> members(const RankFilter& filter, int world) {
  std::vector<int> out;
  for (int r = 0; r < world; ++r) {
    if (filter(r)) out.push_back(r);
  }
  return out;
}

TEST(RankFilter, DefaultAndAllAcceptEveryRank) {
  EXPECT_TRUE(RankFilter().is_all());
  auto all = RankFilter::parse("all");
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_TRUE(all->is_all());
  EXPECT_EQ(members(*all, 4), (std::vector<int>{0, 1, 2, 3}));
}

TEST(RankFilter, SingleRanksAndRanges) {
  auto filter = RankFilter::parse("0,2-3");
  ASSERT_TRUE(filter) << filter.error().message;
  EXPECT_FALSE(filter->is_all());
  EXPECT_EQ(members(*filter, 6), (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(members(RankFilter::parse("5").value(), 8), (std::vector<int>{5}));
  EXPECT_EQ(members(RankFilter::parse(" 1 , 4-4 ").value(), 8), (std::vector<int>{1, 4}));
}

TEST(RankFilter, ErrorsNameTheBadToken) {
  struct Case {
    const char* spec;
    const char* token;
  };
  for (auto [spec, token] :
       {Case{"0,x", "'x'"}, Case{"3-1", "'3-1'"}, Case{"1,,2", "''"}, Case{"", "''"}, Case{"-1", "'-1'"},
        Case{"2-", "'2-'"}, Case{"1-2-3", "'1-2-3'"}, Case{"0,1a", "'1a'"}, Case{"al", "'al'"}}) {
    auto filter = RankFilter::parse(spec);
    ASSERT_FALSE(filter) << spec;
    EXPECT_EQ(filter.error().kind, ErrorKind::usage);
    EXPECT_NE(filter.error().message.find(std::string("bad token ") + token), std::string::npos)
        << spec << ": " << filter.error().message;
  }
}

TEST(RankFilter, CheckWorldSizeNamesTheTokenOutOfRange) {
  auto filter = RankFilter::parse("0,6-9");
  ASSERT_TRUE(filter);
  EXPECT_TRUE(filter->check_world_size(10));
  auto result = filter->check_world_size(8);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "--ranks: token '6-9' names rank 9, but the job has 8 ranks (0-7)");
  EXPECT_TRUE(RankFilter().check_world_size(1));
}

}  // namespace
}  // namespace muster::logs
