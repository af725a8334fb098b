#include "doctor/ssh/client_config.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "posix/file.h"
#include "posix/run_commands.h"

namespace muster::doctor {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_file(const std::string& path) {
  auto text = posix::read_text_file(path);
  if (!text) return std::nullopt;
  return *text;
}

// A config directory of its own, and the real `ssh -F FILE -G NAME` to compare the model with.
class SshConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("muster-ssh-config-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    account_ = posix::current_account();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    auto path = (dir_ / name).string();
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }

  SshConfig load(const std::string& file) {
    return SshConfig::load_one(file, account_.home, account_.name, read_file, posix::glob_paths);
  }

  static ResolvedPeer ssh_says(const std::string& file, const std::string& name) {
    auto outcome = posix::run_commands({{"ssh", "-F", file, "-G", name}}, 10'000);
    EXPECT_TRUE(outcome[0].succeeded()) << outcome[0].error << outcome[0].err;
    return parse_ssh_g(outcome[0].out);
  }

  // The model agrees with ssh for every name.
  void expect_as_ssh(const std::string& file, const std::vector<std::string>& names) {
    auto config = load(file);
    ASSERT_TRUE(config.supported()) << config.unsupported_reason();
    for (const auto& name : names) {
      auto model = config.resolve(name);
      ASSERT_TRUE(model.has_value()) << name;
      auto real = ssh_says(file, name);
      EXPECT_EQ(model->host, real.host) << name;
      EXPECT_EQ(model->port, real.port) << name;
      EXPECT_EQ(model->user, real.user) << name;
      EXPECT_EQ(model->alias, real.alias) << name;
      EXPECT_EQ(model->strict, real.strict) << name;
      EXPECT_EQ(model->identities_only, real.identities_only) << name;
      EXPECT_EQ(model->proxy, real.proxy) << name;
      EXPECT_EQ(model->global_known_files, real.global_known_files) << name;
      EXPECT_EQ(model->user_known_files, real.user_known_files) << name;
      EXPECT_EQ(model->identity_files, real.identity_files) << name;
    }
  }

  fs::path dir_;
  posix::Account account_;
};

TEST_F(SshConfigTest, EmptyConfigIsSshDefaults) {
  expect_as_ssh(write("config", ""), {"node1", "Node2", "10.0.0.7"});
}

TEST_F(SshConfigTest, HostBlocksFirstValueWinsAndIdentitiesAccumulate) {
  auto file = write("config",
                    "# cluster\n"
                    "Host Node1 foo*\n"
                    "  HostName MyHost.%h\n"
                    "  StrictHostKeyChecking yes\n"
                    "  HostKeyAlias AliasX\n"
                    "  User=bob\n"
                    "  UserKnownHostsFile ~/kh1 /x/kh2\n"
                    "Host bar\n"
                    "  StrictHostKeyChecking accept-new\n"
                    "  ProxyJump none\n"
                    "  IdentityFile ~/.ssh/a\n"
                    "  IdentityFile \"/b c\"\n"
                    "Host baz\n"
                    "  StrictHostKeyChecking off\n"
                    "  ProxyCommand ssh -W %h:%p gw\n"
                    "Host bar baz\n"
                    "  Port 2200\n"
                    "  IdentityFile ~/.ssh/z\n"
                    "  IdentitiesOnly yes\n"
                    "Host *\n"
                    "  Port 2222\n"
                    "  User = carol\n"
                    "  GlobalKnownHostsFile /etc/cluster_hosts\n");
  expect_as_ssh(file, {"node1", "NODE1", "foo7", "bar", "baz", "qux"});
}

TEST_F(SshConfigTest, NegationAndWildcards) {
  auto file = write("config",
                    "Host node* !node3\n"
                    "  Port 2022\n"
                    "Host node?\n"
                    "  User alice\n"
                    "Host *\n"
                    "  StrictHostKeyChecking no\n");
  expect_as_ssh(file, {"node1", "node3", "node12", "gpu1"});
}

TEST_F(SshConfigTest, IncludesInsideAndOutsideHostBlocks) {
  auto extra = write("conf.d/10-extra.conf",
                     "Port 2300\n"
                     "Host gpu*\n"
                     "  User trainer\n");
  (void)extra;
  write("conf.d/20-more.conf", "HostName %h.cluster\n");
  auto file = write("config",
                    "Host gpu1\n"
                    "  Include " + (dir_ / "conf.d" / "*.conf").string() + "\n"
                    "Host *\n"
                    "  User nobody\n");
  expect_as_ssh(file, {"gpu1", "gpu2", "cpu1"});
}

TEST_F(SshConfigTest, PeersTheConfigAppliesToAlikeShareAGroup) {
  auto config = load(write("config", "Host node*\n  Port 2022\nHost gpu1\n  User a\n"));
  EXPECT_EQ(config.group_of("node1"), config.group_of("node17"));
  EXPECT_NE(config.group_of("node1"), config.group_of("gpu1"));
  EXPECT_NE(config.group_of("gpu1"), config.group_of("gpu2"));
  // An alias per node (what the how-tos and `muster gen ssh-config` write): one shape, one group.
  auto aliases = write("aliases",
                       "Host node1\n  HostName 10.0.0.11\nHost node2\n  HostName 10.0.0.12\n"
                       "Host node3\n  HostName 10.0.0.13\n  Port 2222\nHost *\n  User root\n");
  auto per_node = load(aliases);
  EXPECT_EQ(per_node.group_of("node1"), per_node.group_of("node2"));
  EXPECT_NE(per_node.group_of("node1"), per_node.group_of("node3"));
  EXPECT_NE(per_node.group_of("node1"), per_node.group_of("node9"));
  expect_as_ssh(aliases, {"node1", "node2", "node3", "node9"});
  // A %token moves a peer to a group of its own shape.
  auto tokens = load(write("tokens", "Host a\n  HostName %h.x\nHost b\n  HostName b.x\n"));
  EXPECT_NE(tokens.group_of("a"), tokens.group_of("b"));
}

TEST_F(SshConfigTest, WhatTheModelDoesNotFollowIsSaid) {
  EXPECT_FALSE(load(write("a", "Match host node1\n  Port 2\n")).supported());
  EXPECT_FALSE(load(write("b", "CanonicalizeHostname yes\n")).supported());
  EXPECT_FALSE(load(write("c", "Host a,b\n  Port 2\n")).supported());
  auto tokens = load(write("d", "Host *\n  HostName %h.%d\n"));
  ASSERT_TRUE(tokens.supported());
  EXPECT_FALSE(tokens.resolve("node1").has_value());
  auto identity = load(write("e", "Host *\n  IdentityFile ~/.ssh/id_%h\n"));
  EXPECT_FALSE(identity.resolve("node1").has_value());
}

TEST_F(SshConfigTest, DefaultsFollowTheInstalledSsh) {
  auto file = write("config", "Host a\n  Port 2\n");
  auto config = load(file);
  config.set_defaults(ssh_says("/dev/null", "muster-defaults"));
  auto model = config.resolve("b");
  ASSERT_TRUE(model.has_value());
  auto real = ssh_says(file, "b");
  EXPECT_EQ(model->identity_files, real.identity_files);
  EXPECT_EQ(model->user_known_files, real.user_known_files);
}

}  // namespace
}  // namespace muster::doctor
