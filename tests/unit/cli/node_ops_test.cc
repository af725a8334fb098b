// One definition per node operation (head/node_op.h): the command line the head builds for an op is what the
// node parses back into the same op (cli/node_ops.h), for every op of `muster node`. Each op is filled with a
// value other than its default in every field, so a field that one side left out, named differently or
// formats differently makes its test fail.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/node_ops.h"
#include "head/node_op.h"
#include "util/text.h"

namespace muster::cli {
namespace {

template <typename Op>
void expect_round_trip(const Op& op) {
  head::NodeCommand command = head::node_op_command(op);
  ASSERT_GE(command.argv.size(), 3u);
  EXPECT_EQ(command.argv[0], head::kNodeMuster);
  EXPECT_EQ(command.argv[1], "node");
  EXPECT_EQ(command.argv[2], Op::kName);
  std::vector<std::string> args(command.argv.begin() + 2, command.argv.end());
  auto parsed = parse_node_op<Op>(args);
  ASSERT_TRUE(parsed.has_value()) << "does not parse: " << join(args, " ");
  EXPECT_TRUE(*parsed == op) << "parses into another op: " << join(args, " ");
}

TEST(NodeOps, EveryOpOfTheTableRoundTripsWithItsDefaults) {
  std::apply([](const auto&... op) { (expect_round_trip(op), ...); }, NodeOps{});
}

TEST(NodeOps, HostsBlock) {
  expect_round_trip(setup::HostsBlockOp{true, "/etc/hosts", true, {"10.0.0.11 node1", "-leading dash"}});
}

TEST(NodeOps, AddLines) {
  expect_round_trip(setup::AddLinesOp{true, ".ssh/known_hosts", "0644", {"node1 ssh-ed25519 AAAA", "--not-a-flag"}});
}

TEST(NodeOps, SshIdentity) { expect_round_trip(setup::SshIdentityOp{true}); }

TEST(NodeOps, Facts) {
  doctor::FactsOp op;
  op.gather.python = "/opt/venv/bin/python";
  op.gather.paths = {"/work/code", "/data set"};
  op.gather.resolve = {"node1", "node2"};
  op.gather.import_torch = true;
  op.gather.caches = true;
  op.markers.marker = ".muster-doctor-abc";
  op.markers.paths = {"/work/code"};
  op.mark_caches = true;
  op.markers.node_index = 3;
  op.gather.container_image = "registry/image:tag";
  op.gather.container_runtime = "podman";
  expect_round_trip(op);
}

TEST(NodeOps, Cross) {
  doctor::CrossOp op;
  op.cross.peers = {"node2", "node3"};
  op.cross.kex = "curve25519-sha256";
  op.cross.probe_port = 23456;
  op.cross.marker = ".muster-doctor-abc";
  op.cross.seen_paths = {"/work/code"};
  op.cross.cache_dirs = {"/root/.cache", "/nonexistent"};
  op.cross.master_listen = 29500;
  op.cross.master_expect = 3;
  op.master_connect = "10.0.0.11:29500";
  op.cross.seconds = 18;
  expect_round_trip(op);
}

TEST(NodeOps, Bandwidth) {
  doctor::BandwidthProbeOp op;
  op.pick_port = true;
  op.probe.listen_port = 31000;
  op.probe.accept = 2;
  op.to = {"10.0.0.12:31000", "[fd00::2]:31001"};
  op.probe.seconds = 0.1;  // formatted as the shortest text that reads back as the same double
  op.probe.warmup = 1.0 / 3;
  op.probe.timeout_ms = 4500;
  expect_round_trip(op);
}

TEST(NodeOps, Gpu) {
  doctor::GpuOp op;
  op.gather.timeout_ms = 3000;
  expect_round_trip(op);
  expect_round_trip(doctor::GpuOp{});
}

TEST(NodeOps, CacheDir) { expect_round_trip(launch::CacheDirOp{"/scratch/caches"}); }

TEST(NodeOps, Image) {
  image::NodeImageOp op;
  op.options.runtime = "docker";
  op.options.image = "train:latest";
  op.options.load = "/tmp/stage/sha256-abc.tar";
  op.options.expect = "sha256:abc";
  op.options.remove = "/tmp/stage/sha256-abc.tar";
  expect_round_trip(op);
}

TEST(NodeOps, OnlyFieldsThatDifferFromTheDefaultAreGiven) {
  launch::CacheDirOp op;
  EXPECT_EQ(head::node_op_args(op), std::vector<std::string>{"cache-dir"});
  op.base = "/scratch";
  EXPECT_EQ(head::node_op_args(op), (std::vector<std::string>{"cache-dir", "--base=/scratch"}));
}

TEST(NodeOps, AnOpParsesOnlyAsItself) {
  EXPECT_FALSE(parse_node_op<launch::CacheDirOp>({"image", "--image=x"}).has_value());
  EXPECT_FALSE(parse_node_op<launch::CacheDirOp>({"cache-dir", "--no-such-flag"}).has_value());
}

}  // namespace
}  // namespace muster::cli
