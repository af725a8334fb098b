// What `muster sync` prints: sizes, the live progress line (rate, ETA, the slowest node), the per-node summary
// and the dry-run listing.
#include "sync_head/sync_view.h"

#include <gtest/gtest.h>

namespace muster::sync_head {
namespace {

TEST(SyncView, SizesAreDecimalLikeRsync) {
  EXPECT_EQ(format_size(0), "0 B");
  EXPECT_EQ(format_size(999), "999 B");
  EXPECT_EQ(format_size(4100), "4.1 kB");
  EXPECT_EQ(format_size(312'400'000), "312.4 MB");
  EXPECT_EQ(format_size(1'200'000'000), "1.20 GB");
}

TEST(SyncView, ProgressShowsRateEtaAndTheSlowestNode) {
  SyncProgress p;
  p.node_total = {100'000'000, 100'000'000};
  p.node_done = {60'000'000, 20'000'000};
  p.total_bytes = 200'000'000;
  p.elapsed_ms = 2000;
  std::string line = format_progress(p, {"node1", "node2"});
  EXPECT_EQ(line, "sync  80.00 MB / 200.0 MB   40%  40.00 MB/s  ETA 3s  slowest node2 (-20.00 MB)");
}

TEST(SyncView, ProgressWithoutBytesYetHasNoEta) {
  SyncProgress p;
  p.node_total = {10};
  p.node_done = {0};
  p.total_bytes = 10;
  p.elapsed_ms = 0;
  EXPECT_EQ(format_progress(p, {"n"}), "sync  0 B / 10 B    0%  -");
}

SyncReport sample_report() {
  SyncReport report;
  report.source_files = 3;
  report.source_bytes = 1500;
  report.scan_ms = 120;
  report.transfer_ms = 2000;
  report.unique_bytes = 1500;
  report.head_wire_bytes = 1200;
  report.tree_depth = 2;  // a chain of the two nodes, over one connection
  report.head_connections = 1;
  NodeSyncReport ok;
  ok.files_done = 3;
  ok.bytes_done = 1500;
  ok.wire_bytes = 1200;
  ok.finished_ms = 1900;
  ok.plan.send.push_back(sync::Entry{"a.py", sync::EntryKind::file, 0644, 1500, 0, 1, ""});
  ok.plan.send_bytes = 1500;
  ok.plan.remove = {"old.txt"};
  ok.plan.links.push_back(sync::Entry{"l", sync::EntryKind::symlink, 0777, 4, 0, 0, "a.py"});
  NodeSyncReport failed;
  failed.error = "node lost: no heartbeat for 5000 ms";
  report.nodes = {ok, failed};
  return report;
}

TEST(SyncView, SummaryHasOneLinePerNodeAndNamesFailures) {
  std::string out = format_summary(sample_report(), {"node1", "node2"}, "/src", "/dst");
  EXPECT_NE(out.find("synced /src -> /dst on 2 nodes: 3 files, 1.5 kB"), std::string::npos) << out;
  EXPECT_NE(out.find("  node1        3      1.5 kB      1.2 kB        0        1     1.9s  identical"), std::string::npos) << out;
  EXPECT_NE(out.find("FAILED\n      node lost: no heartbeat for 5000 ms"), std::string::npos) << out;
  EXPECT_NE(out.find("relay chain"), std::string::npos) << out;
}

TEST(SyncView, SummarySaysHowTheDataTravelled) {
  SyncReport report = sample_report();
  report.tree_depth = 1;
  report.head_connections = 2;
  EXPECT_NE(format_summary(report, {"node1", "node2"}, "/s", "/d").find("(to each node)"), std::string::npos);
  report.nodes.push_back(report.nodes[0]);
  report.tree_depth = 2;
  std::string out = format_summary(report, {"node1", "node2", "node3"}, "/s", "/d");
  EXPECT_NE(out.find("over 2 connections, each node passing it on to those below it (2 levels)"), std::string::npos)
      << out;
}

TEST(SyncView, DryRunListsWhatWouldChange) {
  std::string out = format_dry_run(sample_report(), {"node1", "node2"}, "/src", "/dst");
  EXPECT_NE(out.find("dry run: /src -> /dst (3 files, 1.5 kB); nothing was changed"), std::string::npos) << out;
  EXPECT_NE(out.find("node1: 1 file to send (1.5 kB), 1 to delete, 1 link, 0 metadata changes"), std::string::npos)
      << out;
  EXPECT_NE(out.find("  - old.txt\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  + a.py (1.5 kB)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  l l -> a.py\n"), std::string::npos) << out;
  EXPECT_NE(out.find("node2: cannot sync: node lost"), std::string::npos) << out;
}

}  // namespace
}  // namespace muster::sync_head
