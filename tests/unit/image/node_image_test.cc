#include "image/node_image.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

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

namespace fs = std::filesystem;

struct Scratch {
  std::string path;
  Scratch() {
    char pattern[] = "/tmp/muster-node-image.XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~Scratch() { fs::remove_all(path); }
};

TEST(NodeImage, RemovesThePushedArchiveAndItsDirectory) {
  Scratch scratch;
  std::string dir = scratch.path + "/images/0123";
  fs::create_directories(dir);
  std::ofstream(dir + "/image.tar") << "archive";
  EXPECT_TRUE(remove_pushed_archive(dir + "/image.tar"));
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(fs::exists(scratch.path + "/images"));
  EXPECT_FALSE(remove_pushed_archive(dir + "/image.tar"));  // gone already: nothing to do
}

// On a home directory shared with the head (or on the head's own machine), the archive's path is the head's
// cache: the head marks it while the nodes remove theirs, and a node that sees the mark keeps it.
TEST(NodeImage, KeepsTheHeadsOwnCache) {
  Scratch scratch;
  std::string dir = scratch.path + "/images/0123";
  fs::create_directories(dir);
  std::ofstream(dir + "/image.tar") << "archive";
  std::ofstream(dir + "/" + kHeadCacheMarker) << "";
  EXPECT_FALSE(remove_pushed_archive(dir + "/image.tar"));
  EXPECT_TRUE(fs::exists(dir + "/image.tar"));
}

}  // namespace
}  // namespace muster::image
