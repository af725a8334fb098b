#include "container/enter.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace muster::container {
namespace {

using Args = std::vector<std::string>;

TEST(InnerAgentArgs, TheSpecStaysOutsideAndTheAgentInsideIsToldWhereItIs) {
  EXPECT_EQ(inner_agent_args({"--nonce", "abc", "--container-spec", "{\"image\":\"x\"}", "--heartbeat-ms", "500"}),
            (Args{"--nonce", "abc", "--heartbeat-ms", "500", "--in-container"}));
  EXPECT_EQ(inner_agent_args({"--container-spec={\"image\":\"x\"}", "--nonce", "abc"}),
            (Args{"--nonce", "abc", "--in-container"}));
  EXPECT_EQ(inner_agent_args({"--nonce", "abc"}), (Args{"--nonce", "abc", "--in-container"}));
  EXPECT_EQ(inner_agent_args({"--nonce", "abc", "--container-spec"}), (Args{"--nonce", "abc", "--in-container"}));
}

}  // namespace
}  // namespace muster::container
