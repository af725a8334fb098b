#include "doctor/node/cross_checks.h"

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "doctor/bandwidth/probe.h"
#include "doctor/probe_token.h"
#include "posix/socket.h"
#include "posix/tcp_stream.h"

namespace muster::doctor {
namespace {

namespace fs = std::filesystem;

int free_port() {
  auto line = pick_probe_port();
  EXPECT_TRUE(line);
  return std::stoi(line->substr(5));
}

CrossOptions listener(int port, int expect, const std::string& token) {
  CrossOptions options;
  options.master_listen = port;
  options.master_expect = expect;
  options.token = token;
  options.seconds = 3;
  return options;
}

CrossOptions connector(int port, const std::string& token, int seconds = 3) {
  CrossOptions options;
  options.master_host = "127.0.0.1";
  options.master_port = port;
  options.token = token;
  options.seconds = seconds;
  return options;
}

// The master-port check counts only this run's nodes, and a node says `reached` only when muster's listener of
// this run answered (not whatever else listens on the port).
TEST(CrossChecks, MasterPortCountsOnlyConnectionsWithTheRunsToken) {
  int port = free_port();
  std::string token = new_probe_token();
  std::string listened;
  std::thread node0([&] { listened = run_cross_checks(listener(port, 1, token)); });
  auto stray = posix::connect_tcp_stream("127.0.0.1", port, 5000);
  ASSERT_TRUE(stray);
  EXPECT_EQ(run_cross_checks(connector(port, "wrong", 1)).rfind("master unreachable ", 0), 0u);
  EXPECT_EQ(run_cross_checks(connector(port, token)), "master reached\n");
  node0.join();
  EXPECT_EQ(listened, "master accepted 1\n");
}

TEST(CrossChecks, AnotherServiceOnTheMasterPortIsNotReached) {
  int port = free_port();
  auto other = posix::listen_tcp(port);  // listens and never answers
  ASSERT_TRUE(other);
  auto result = run_cross_checks(connector(port, new_probe_token(), 1));
  EXPECT_EQ(result.rfind("master unreachable ", 0), 0u) << result;
  auto taken = run_cross_checks(listener(port, 1, new_probe_token()));
  EXPECT_EQ(taken.rfind("master in-use ", 0), 0u) << taken;
}

// The markers of the facts round (node 0's in the shared paths, every node's in its caches) are what the cross
// round sees.
TEST(CrossChecks, MarkersWrittenInTheFactsRoundAreSeen) {
  fs::path dir = fs::temp_directory_path() / ("muster-cross-" + new_probe_token());
  fs::create_directories(dir / "shared");
  fs::create_directories(dir / "cache-a");
  fs::create_directories(dir / "cache-b");
  std::string marker = ".muster-doctor-test";
  write_markers({marker, {(dir / "shared").string()}, {(dir / "cache-a").string()}, 0});
  write_markers({marker, {}, {(dir / "cache-a").string(), (dir / "cache-b").string()}, 3});
  CrossOptions look;
  look.marker = marker;
  look.seen_paths = {(dir / "shared").string(), (dir / "cache-b").string()};
  look.cache_dirs = {(dir / "cache-a").string(), (dir / "cache-b").string(), "/nonexistent"};
  auto lines = run_cross_checks(look);
  EXPECT_NE(lines.find("seen " + (dir / "shared").string() + "\n"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("seen " + (dir / "cache-b").string()), std::string::npos) << lines;
  EXPECT_NE(lines.find("cache 0 0\n"), std::string::npos) << lines;
  EXPECT_NE(lines.find("cache 0 3\n"), std::string::npos) << lines;
  EXPECT_NE(lines.find("cache 1 3\n"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("cache 1 0\n"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("cache 2 "), std::string::npos) << lines;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace muster::doctor
