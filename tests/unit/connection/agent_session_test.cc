#include "connection/agent_session.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "posix/fd.h"
#include "posix/pipe.h"
#include "protocol/codec.h"
#include "protocol/preamble.h"

namespace muster::connection {
namespace {

constexpr int64_t kStart = 1'000'000;
constexpr int kConnectTimeoutS = 10;  // silent limit: 10.5 s; answered: 60 s

// A session over three pipes, as a transport would give it; the test plays the agent on the other ends.
struct FakeAgent {
  posix::Fd stdin_read, stdout_write, stderr_write;
  std::unique_ptr<AgentSession> session;

  FakeAgent() {
    auto in = posix::make_pipe();
    auto out = posix::make_pipe();
    auto err = posix::make_pipe();
    EXPECT_TRUE(in && out && err);
    transport::AgentProcess process;
    process.to_agent = std::move(in->write);
    process.from_agent = std::move(out->read);
    process.agent_stderr = std::move(err->read);
    stdin_read = std::move(in->read);
    stdout_write = std::move(out->write);
    stderr_write = std::move(err->write);
    session = std::make_unique<AgentSession>("node1", std::move(process), "n0nce", nullptr, kStart);
  }

  void says(const std::string& bytes, int64_t now) {
    ASSERT_TRUE(posix::write_all(stdout_write.get(), bytes));
    session->on_stdout_readable(now);
  }
};

TEST(AgentSessionJudge, ASilentNodeGetsTheConnectTimeoutAndHalfASecond) {
  FakeAgent agent;
  EXPECT_EQ(agent.session->connect_overdue(kStart + 10'500, kConnectTimeoutS), std::nullopt);
  EXPECT_EQ(agent.session->connect_overdue(kStart + 10'501, kConnectTimeoutS), "no answer within 10.5 s");
}

TEST(AgentSessionJudge, ANodeThatAnsweredGetsLongerButNotForever) {
  FakeAgent agent;
  agent.says("Welcome to node1 (motd)\n", kStart + 100);
  EXPECT_TRUE(agent.session->heard_anything());
  EXPECT_EQ(agent.session->connect_overdue(kStart + 30'000, kConnectTimeoutS), std::nullopt);
  EXPECT_EQ(agent.session->connect_overdue(kStart + 60'001, kConnectTimeoutS), "no answer within 60.0 s");
}

TEST(AgentSessionJudge, ASessionThatSaidHelloIsNeverOverdue) {
  FakeAgent agent;
  agent.says(protocol::preamble_line("n0nce") + protocol::encode(protocol::AgentMessage{protocol::Hello{}}),
             kStart + 100);
  ASSERT_TRUE(agent.session->has_hello()) << agent.session->failure();
  EXPECT_EQ(agent.session->connect_overdue(kStart + 3'600'000, kConnectTimeoutS), std::nullopt);
}

TEST(AgentSessionJudge, HeartbeatMissingCountsFromTheLastByteHeard) {
  FakeAgent agent;
  EXPECT_EQ(agent.session->heartbeat_missing(kStart + 5'000, 5'000), std::nullopt);
  EXPECT_EQ(agent.session->heartbeat_missing(kStart + 5'001, 5'000), "no heartbeat for 5001 ms");
  agent.says("noise\n", kStart + 4'000);
  EXPECT_EQ(agent.session->heartbeat_missing(kStart + 9'000, 5'000), std::nullopt);
  EXPECT_EQ(agent.session->heartbeat_missing(kStart + 9'500, 5'000), "no heartbeat for 5500 ms");
  agent.session->heard_from(kStart + 9'500);  // its owner paused reading it (back-pressure)
  EXPECT_EQ(agent.session->heartbeat_missing(kStart + 9'600, 5'000), std::nullopt);
}

}  // namespace
}  // namespace muster::connection
