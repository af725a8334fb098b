#include "util/random.h"

#include <regex>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(RandomHex, HasTheDigitsAskedForAllLowercaseHex) {
  for (int digits : {0, 1, 6, 8, 9, 12, 32, 33}) {
    std::string text = random_hex(digits);
    EXPECT_EQ(text.size(), static_cast<size_t>(digits));
    EXPECT_EQ(text.find_first_not_of("0123456789abcdef"), std::string::npos) << text;
  }
}

TEST(RandomHex, DoesNotRepeat) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) seen.insert(random_hex(16));
  EXPECT_EQ(seen.size(), 1000u);  // 64 random bits each: a repeat would mean a seeded or broken source
}

TEST(NewJobId, IsUtcTimeThenSixHexDigits) {
  std::string id = new_job_id();
  EXPECT_TRUE(std::regex_match(id, std::regex("20[0-9]{6}-[0-2][0-9][0-5][0-9][0-6][0-9]-[0-9a-f]{6}"))) << id;
}

TEST(NewJobId, IdsOfOneSecondDifferAndSortByTime) {
  std::string first = new_job_id();
  std::set<std::string> ids{first};
  for (int i = 0; i < 50; ++i) ids.insert(new_job_id());
  EXPECT_GT(ids.size(), 45u);  // 24 random bits: a clash among 51 is a 1 in 100,000 event, five are impossible
  EXPECT_LE(first.substr(0, 15), new_job_id().substr(0, 15));
}

TEST(JobId, WhatANewIdIsAndWhatCannotNameAJob) {
  EXPECT_EQ(job_id_problem(new_job_id()), "");
  EXPECT_EQ(job_id_problem("ct-ddp-1234.run_2"), "");
  EXPECT_NE(job_id_problem("../x"), "");  // would leave the registry directory
  EXPECT_NE(job_id_problem("a/b"), "");
  EXPECT_NE(job_id_problem(".hidden"), "");
  EXPECT_NE(job_id_problem("-x"), "");
  EXPECT_NE(job_id_problem(""), "");
  EXPECT_NE(job_id_problem(std::string(129, 'a')), "");
  EXPECT_NE(job_id_problem("a b"), "");
}

}  // namespace
}  // namespace muster
