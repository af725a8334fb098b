#include "transport/ssh_master.h"

#include <set>

#include <gtest/gtest.h>

#include "transport/ssh_command.h"

namespace muster::transport {
namespace {

std::string u32(uint32_t value) {
  return {static_cast<char>(value >> 24), static_cast<char>(value >> 16), static_cast<char>(value >> 8),
          static_cast<char>(value)};
}
std::string str(std::string_view text) { return u32(static_cast<uint32_t>(text.size())) + std::string(text); }

// The bytes OpenSSH's master expects (PROTOCOL.mux, version 4), field by field.
TEST(SshMaster, HelloAndNewSessionAreWhatTheMuxProtocolSays) {
  EXPECT_EQ(mux_hello(), u32(8) + u32(0x00000001) + u32(4));
  std::string body = u32(0x10000002) + u32(7) + str("") + u32(0) + u32(0) + u32(0) + u32(0) + u32(0xFFFFFFFFu) +
                     str("") + str("sh -c 'exec muster agent'");
  EXPECT_EQ(mux_new_session(7, "sh -c 'exec muster agent'"), u32(static_cast<uint32_t>(body.size())) + body);
}

TEST(SshMaster, RepliesAreTakenWholeAndInOrder) {
  std::string hello = u32(8) + u32(kMuxHello) + u32(4);
  std::string opened = u32(12) + u32(kMuxSessionOpened) + u32(1) + u32(3);
  std::string failure_body = u32(kMuxFailure) + u32(1) + str("Session open refused by peer");
  std::string failure = u32(static_cast<uint32_t>(failure_body.size())) + failure_body;
  std::string exit = u32(12) + u32(kMuxExitMessage) + u32(3) + u32(97);
  std::string buffer = hello + opened + failure + exit.substr(0, 5);
  EXPECT_EQ(take_mux_reply(buffer)->type, kMuxHello);
  EXPECT_EQ(take_mux_reply(buffer)->type, kMuxSessionOpened);
  auto refused = take_mux_reply(buffer);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->type, kMuxFailure);
  EXPECT_EQ(refused->reason, "Session open refused by peer");
  EXPECT_FALSE(take_mux_reply(buffer));  // the exit message is not complete yet
  buffer += exit.substr(5);
  auto ended = take_mux_reply(buffer);
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->type, kMuxExitMessage);
  EXPECT_EQ(ended->value, 97u);
  EXPECT_TRUE(buffer.empty());
  // A reason whose length runs past the message is cut at the message's end, never read beyond it.
  std::string bad_body = u32(kMuxPermissionDenied) + u32(1) + u32(1000) + "short";
  std::string bad = u32(static_cast<uint32_t>(bad_body.size())) + bad_body + "next";
  auto cut = take_mux_reply(bad);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->reason, "short");
  EXPECT_EQ(bad, "next");
}

// muster finds its own masters by name: one per destination, config file and set of -o options, in the private
// control directory, short enough for a socket address.
TEST(SshMaster, ControlPathsAreDistinctPerDestinationAndOptions) {
  SshOptions options;
  options.control_dir = "/home/u/.cache/muster/ssh";
  std::set<std::string> paths;
  paths.insert(control_path(options, "node1"));
  paths.insert(control_path(options, "node2"));
  paths.insert(control_path(options, "alice@node1"));
  SshOptions port = options;
  port.extra_options = {"Port=2222"};
  paths.insert(control_path(port, "node1"));
  SshOptions config = options;
  config.config_file = "/etc/cluster/ssh_config";
  paths.insert(control_path(config, "node1"));
  EXPECT_EQ(paths.size(), 5u);
  EXPECT_EQ(control_path(options, "node1"), control_path(options, "node1"));
  for (const auto& path : paths) {
    EXPECT_EQ(path.rfind(options.control_dir + "/", 0), 0u);
    EXPECT_LT(path.size(), options.control_dir.size() + 30);
  }
  options.multiplex = false;
  EXPECT_EQ(control_path(options, "node1"), "");
}

// No master behind the path (nothing there, or a file that is not a socket): nullopt, so an ssh client is started.
TEST(SshMaster, NoMasterMeansNoSession) {
  EXPECT_FALSE(open_master_session("/nonexistent/muster-test/socket", "true"));
  EXPECT_FALSE(open_master_session("/etc/hostname", "true"));
}

}  // namespace
}  // namespace muster::transport
