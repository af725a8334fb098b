#include "image/node_image.h"

#include <gtest/gtest.h>

namespace muster::image {
namespace {

TEST(NodeImageState, WhatANodeAnswersIsReadBackEqual) {
  NodeImageState state{"podman", "sha256:3fa9c1", "", 5321};
  auto back = node_image_state_from_json(to_json(state));
  EXPECT_EQ(back.runtime, "podman");
  EXPECT_EQ(back.id, "sha256:3fa9c1");
  EXPECT_EQ(back.error, "");
  EXPECT_EQ(back.load_ms, 5321);
  auto failed = node_image_state_from_json(to_json({"docker", "", "docker load failed: no space (exit 1)", -1}));
  EXPECT_EQ(failed.error, "docker load failed: no space (exit 1)");
  EXPECT_EQ(failed.load_ms, -1);
}

TEST(NodeImageState, AnUnreadableAnswerIsAnErrorOfThatNode) {
  for (const char* text : {"", "Welcome to node1", "[1, 2]", "{\"id\": 7}"}) {
    auto state = node_image_state_from_json(text);
    EXPECT_NE(state.error.find("unreadable answer from the node"), std::string::npos) << text << ": " << state.error;
    EXPECT_EQ(state.id, "") << text;
  }
  auto older = node_image_state_from_json("{\"runtime\": \"podman\"}");  // missing keys: their defaults
  EXPECT_EQ(older.runtime, "podman");
  EXPECT_EQ(older.error, "");
  EXPECT_EQ(older.load_ms, -1);
}

}  // namespace
}  // namespace muster::image
