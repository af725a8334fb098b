// What is rendered from the telemetry: the live snapshot, top's table and keys, report.html's data, Prometheus text.
#include <gtest/gtest.h>

#include "telemetry/live_view.h"
#include "telemetry/prometheus.h"
#include "telemetry/report_html.h"
#include "telemetry/top_table.h"

namespace muster::telemetry {
namespace {

NodeSample node_sample(uint32_t first_rank, uint32_t compute_us, uint32_t runq) {
  NodeSample s;
  s.interval_ms = 1000;
  s.node.cpus = 8;
  s.node.cpu_busy_permille = 600;
  s.node.mem_total_mib = 16384;
  s.node.mem_available_mib = 8192;
  s.node.net_rx_kib = 1000;
  s.node.net_tx_kib = 1000;
  for (uint32_t r = first_rank; r < first_rank + 2; ++r) {
    RankSample rank;
    rank.rank = r;
    rank.source = 1;
    rank.steps = 5;
    rank.step_p50_us = 200000;
    rank.step_p95_us = 210000;
    rank.step_mean_us = 200000;
    rank.compute_us = compute_us;
    rank.wait_us = 200000 - compute_us;
    rank.cpu_permille = 900;
    rank.runq_permille = runq;
    rank.throttled_permille = 0;
    s.ranks.push_back(rank);
  }
  return s;
}

struct Job {
  LiveView view{60'000};
  StragglerDetector detector{{}};
  std::map<uint32_t, StragglerNote> stragglers;
  void run(int seconds) {
    for (int t = 1; t <= seconds; ++t) {
      view.add("node1", node_sample(0, 100000, 50), t * 1000);
      view.add("node2", node_sample(2, 100000, 50), t * 1000);
      NodeSample slow = node_sample(4, 150000, 600);
      slow.ranks[1].compute_us = 100000;
      slow.node.other_cpu_permille = 950;
      view.add("node3", slow, t * 1000);
      for (uint32_t r = 0; r < 6; ++r) detector.add(r, t * 1000, r == 4 ? 150 : 100);
      for (const auto& change : detector.evaluate(t * 1000)) {
        if (change.named) {
          stragglers[change.rank] = {t * 1000, *view.node_of(change.rank),
                                     likely_causes(view.cause_facts(change.rank)).front()};
        }
      }
    }
  }
};

TEST(LiveView, SnapshotNamesTheStragglerWithItsCause) {
  Job job;
  job.run(60);
  ASSERT_EQ(job.stragglers.size(), 1u);
  EXPECT_EQ(job.stragglers.begin()->first, 4u);
  EXPECT_EQ(job.stragglers.begin()->second.node, "node3");
  EXPECT_NE(job.stragglers.begin()->second.cause.find("another process on its CPUs"), std::string::npos);
  auto snap = job.view.snapshot({false, {"node3"}}, job.detector, job.stragglers, 60'000);
  EXPECT_DOUBLE_EQ(snap["steps_per_s"].get<double>(), 5);
  EXPECT_EQ(snap["slowest"]["rank"], 4);
  EXPECT_EQ(snap["slowest"]["node"], "node3");
  ASSERT_EQ(snap["stragglers"].size(), 1u);
  EXPECT_EQ(snap["stragglers"][0]["rank"], 4);
  EXPECT_DOUBLE_EQ(snap["stragglers"][0]["gap"].get<double>(), 0.5);
  ASSERT_EQ(snap["nodes"].size(), 3u);
  EXPECT_FALSE(snap["nodes"][0].contains("rank_rows"));
  const auto& node3 = snap["nodes"][2];
  EXPECT_EQ(node3["node"], "node3");
  EXPECT_TRUE(node3["straggler"].get<bool>());
  ASSERT_EQ(node3["rank_rows"].size(), 2u);
  EXPECT_TRUE(node3["rank_rows"][0]["straggler"].get<bool>());
  EXPECT_DOUBLE_EQ(node3["rank_rows"][0]["compute_share"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(node3["mem_used_gib"].get<double>(), 8);
  auto all = job.view.snapshot({true, {}}, job.detector, job.stragglers, 60'000);
  EXPECT_EQ(all["nodes"][0]["rank_rows"].size(), 2u);
}

TEST(TopTable, RowsSortedExpandedAndMarked) {
  Job job;
  job.run(60);
  auto snap = job.view.snapshot({true, {}}, job.detector, job.stragglers, 60'000);
  TopState state;
  TopScreen screen{200, 0, false, false};
  auto lines = render_top(snap, state, screen, "job x");
  ASSERT_GE(lines.size(), 7u);
  EXPECT_EQ(lines[0], "job x");
  EXPECT_NE(lines[1].find("5.00 steps/s"), std::string::npos);
  EXPECT_NE(lines[1].find("slowest: rank 4 on node3 (+50 % compute per step)"), std::string::npos);
  EXPECT_EQ(lines[2].rfind("STRAGGLER rank 4 on node3: +50 % compute per step", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("^NODE/RANK", 0), 0u) << lines[3];
  EXPECT_EQ(lines[3].rfind("^NODE/RANK", 0), 0u) << lines[2] << "|" << lines[3];
  EXPECT_EQ(lines[6].rfind("*", 0), 0u) << lines[6];  // node3 holds the straggler
  // Slowest first, then node3 expanded: its ranks under it, the straggler marked.
  ASSERT_TRUE(top_key(state, "s", snap, 10));
  lines = render_top(snap, state, screen, "job x");
  EXPECT_NE(lines[4].find("node3"), std::string::npos) << lines[4];
  state.cursor = 0;
  ASSERT_TRUE(top_key(state, "enter", snap, 10));
  lines = render_top(snap, state, screen, "job x");
  EXPECT_NE(lines[5].find("rank 4"), std::string::npos) << lines[5];
  EXPECT_NE(lines[5].find("+50"), std::string::npos) << lines[5];
  EXPECT_EQ(lines[5].rfind("*", 0), 0u) << lines[5];
  EXPECT_NE(lines[6].find("rank 5"), std::string::npos) << lines[6];
  EXPECT_FALSE(top_key(state, "q", snap, 10));
  // A narrow screen keeps the columns that fit.
  TopScreen narrow{40, 10, false, true};
  for (const auto& line : render_top(snap, state, narrow, "job x")) EXPECT_LE(line.size(), 40u) << line;
}

TEST(Report, DataAndPageAreSelfContained) {
  Store store(1'000'000);
  store.event({1'000'000, "start", "attempt 0", -1, ""});
  for (int t = 0; t < 90; ++t) {
    store.add("node1", node_sample(0, 100000, 0), 1'000'000 + t * 1000);
    store.add("node2", node_sample(2, t > 30 ? 160000 : 100000, 0), 1'000'000 + t * 1000);
  }
  store.event({1'040'000, "restart", "attempt 1: rank 3 failed", -1, ""});
  store.event({1'070'000, "straggler", "rank 2 on node2: </script><b>", 2, "node2"});
  nlohmann::json summary{{"job_id", "job-1"}, {"headline", "2 nodes <x>"}, {"stragglers", {{{"rank", 2}}}}};
  auto data = report_data(store, summary);
  EXPECT_EQ(data["ranks"].size(), 4u);
  EXPECT_EQ(data["nodes"].size(), 2u);
  EXPECT_EQ(data["events"].size(), 3u);
  EXPECT_DOUBLE_EQ(data["events"][1]["t_s"].get<double>(), 40);
  EXPECT_EQ(data["duration_s"], 90);
  EXPECT_EQ(data["ranks"][2]["compute_ms"][50], 160);
  std::string html = render_report(store, summary);
  EXPECT_EQ(html.find("</script><b>"), std::string::npos);  // the event's text cannot end the data element
  EXPECT_NE(html.find("2 nodes &lt;x&gt;"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // the SVG namespace only
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
}

TEST(Prometheus, GaugesPerRankAndNode) {
  Job job;
  job.run(60);
  auto text = prometheus_text(job.view.snapshot({true, {}}, job.detector, job.stragglers, 60'000), "job\"1");
  EXPECT_NE(text.find("# TYPE muster_rank_steps_per_second gauge\n"), std::string::npos);
  EXPECT_NE(text.find("muster_rank_compute_seconds{job=\"job\\\"1\",node=\"node3\",rank=\"4\"} 0.15\n"), std::string::npos) << text;
  EXPECT_NE(text.find("muster_straggler{job=\"job\\\"1\",node=\"node3\",rank=\"4\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("muster_straggler{job=\"job\\\"1\",node=\"node1\",rank=\"0\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("muster_node_memory_used_bytes{job=\"job\\\"1\",node=\"node1\"} 8589934592\n"), std::string::npos) << text;
  EXPECT_NE(text.find("muster_job_steps_per_second{job=\"job\\\"1\"} 5\n"), std::string::npos);
}

}  // namespace
}  // namespace muster::telemetry
