#include "jobs/job_table.h"

#include <gtest/gtest.h>

#include "jobs/job_logs.h"

namespace muster::jobs {
namespace {

JobRow row(std::string id, head::JobState state, int64_t started, int exit_code = 0) {
  JobRow r;
  r.record.job_id = std::move(id);
  r.record.started_unix_ms = started;
  r.record.exit_code = exit_code;
  r.record.nodes = 2;
  r.record.ranks = 4;
  r.record.run_dir = "/runs/" + r.record.job_id;
  r.state = state;
  return r;
}

TEST(JobTable, RunningAndDeadHeadsAlwaysShownEndedOnlyTheRecentOnes) {
  std::vector<JobRow> rows;
  for (int i = 0; i < 15; ++i) rows.push_back(row("ended" + std::to_string(i), head::JobState::ended, 100 + i));
  rows.push_back(row("old-running", head::JobState::running, 1));
  rows.push_back(row("old-died", head::JobState::head_died, 2));
  auto shown = rows_to_show(rows, false);
  ASSERT_EQ(shown.size(), kRecentEnded + 2);
  EXPECT_EQ(shown.front().record.job_id, "ended14");  // newest first
  EXPECT_EQ(shown[kRecentEnded - 1].record.job_id, "ended5");
  EXPECT_EQ(shown[kRecentEnded].record.job_id, "old-died");
  EXPECT_EQ(shown.back().record.job_id, "old-running");
  EXPECT_EQ(rows_to_show(rows, true).size(), rows.size());
}

TEST(JobTable, StatesSayWhatHappened) {
  EXPECT_EQ(state_text(row("a", head::JobState::running, 0)), "running");
  EXPECT_EQ(state_text(row("a", head::JobState::head_died, 0)), "head died");
  EXPECT_EQ(state_text(row("a", head::JobState::ended, 0, 130)), "exit 130");
  auto unstarted = row("a", head::JobState::ended, 0, -1);
  unstarted.record.error = "node2: unreachable";
  EXPECT_EQ(state_text(unstarted), "not started");
  auto json = job_rows_json({unstarted, row("b", head::JobState::head_died, 0)});
  EXPECT_EQ(json[0]["state"], "ended");
  EXPECT_EQ(json[0]["error"], "node2: unreachable");
  EXPECT_EQ(json[1]["state"], "head died");
  EXPECT_FALSE(json[1].contains("exit_code"));  // a dead head's job has none
}

TEST(JobTable, AgesAndTheTable) {
  EXPECT_EQ(format_age(0, 45'000), "45s");
  EXPECT_EQ(format_age(0, 12 * 60'000 + 5'000), "12m");
  EXPECT_EQ(format_age(0, 3 * 3'600'000), "3h");
  EXPECT_EQ(format_age(0, 3 * 3'600'000 + 5 * 60'000), "3h5m");
  EXPECT_EQ(format_age(0, 2 * 86'400'000 + 4 * 3'600'000), "2d4h");
  EXPECT_EQ(format_age(10'000, 0), "0s");  // a clock that went back
  EXPECT_EQ(format_job_table({}, 0), "no muster jobs of yours on this machine\n");
  EXPECT_EQ(format_job_table({row("j1", head::JobState::running, 0)}, 61'000),
            "JOB  STATE    NODES  RANKS     AGE  RUN DIR\n"
            "j1   running      2      4      1m  /runs/j1\n");
}

head::JobRecord two_nodes() {
  head::JobRecord job;
  job.job_id = "j";
  job.ranks = 4;
  job.layout = {{"node1", 0, 2}, {"node2", 2, 2}};
  return job;
}

TEST(SelectRanks, ByRankByNodeNameOrIndex) {
  auto all = select_ranks(two_nodes(), "all", "");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[2].node, "node2");
  auto one = select_ranks(two_nodes(), "1", "");
  ASSERT_TRUE(one);
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].rank, 1);
  EXPECT_EQ((*one)[0].node, "node1");
  auto node2 = select_ranks(two_nodes(), "all", "node2");
  ASSERT_TRUE(node2);
  ASSERT_EQ(node2->size(), 2u);
  EXPECT_EQ((*node2)[0].rank, 2);
  auto index = select_ranks(two_nodes(), "0-2", "1");
  ASSERT_TRUE(index);
  ASSERT_EQ(index->size(), 1u);
  EXPECT_EQ((*index)[0].rank, 2);
}

TEST(SelectRanks, WhatMatchesNothingIsAnError) {
  auto no_node = select_ranks(two_nodes(), "all", "node3");
  ASSERT_FALSE(no_node);
  EXPECT_NE(no_node.error().message.find("its nodes: node1, node2"), std::string::npos) << no_node.error().message;
  auto no_rank = select_ranks(two_nodes(), "7", "");
  ASSERT_FALSE(no_rank);
  EXPECT_NE(no_rank.error().message.find("the job has 4 ranks"), std::string::npos) << no_rank.error().message;
  auto disjoint = select_ranks(two_nodes(), "0", "node2");
  ASSERT_FALSE(disjoint);
  EXPECT_EQ(disjoint.error().kind, ErrorKind::usage);
}

}  // namespace
}  // namespace muster::jobs
