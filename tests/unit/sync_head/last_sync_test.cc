// The record `muster sync --fanout auto` chooses the star by (sync_head/last_sync.h): one per source, destination
// and set of nodes, next to the source's hash cache, holding the digest of the last source that reached them all.
#include "sync_head/last_sync.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

namespace muster::sync_head {
namespace {

class LastSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir_template[] = "/tmp/muster-last-sync-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    dir_ = dir_template;
    request_.source = "/data/src";
    request_.destination = "/data/dst";
    request_.cache_dir = dir_ + "/sync";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  SyncRequest request_;
};

TEST_F(LastSyncTest, OneRecordPerDestinationAndNodeSetInAnyOrder) {
  std::string path = last_sync_path(request_, {"node1", "node2", "node3"});
  EXPECT_EQ(path.rfind(dir_ + "/sync/", 0), 0u) << path;
  EXPECT_EQ(path, last_sync_path(request_, {"node3", "node1", "node2"}));
  EXPECT_NE(path, last_sync_path(request_, {"node1", "node2"}));
  EXPECT_NE(path, last_sync_path(request_, {"node1", "node2", "node4"}));
  SyncRequest other = request_;
  other.destination = "/data/elsewhere";
  EXPECT_NE(path, last_sync_path(other, {"node1", "node2", "node3"}));
  other = request_;
  other.source = "/data/other-src";
  EXPECT_NE(path, last_sync_path(other, {"node1", "node2", "node3"}));
}

TEST_F(LastSyncTest, RemembersTheDigestOnlyWhereTheCacheDirectoryIs) {
  std::string digest("\x01\x00\x0a\xff" "0123456789ab", 16);  // raw bytes, as plan_digest gives them
  std::string path = last_sync_path(request_, {"node1", "node2", "node3"});
  EXPECT_FALSE(same_as_last_sync(path, digest));
  remember_last_sync(path, digest);  // no cache directory yet (the hash cache makes it): nothing written
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_EQ(mkdir((dir_ + "/sync").c_str(), 0700), 0);
  remember_last_sync(path, digest);
  EXPECT_TRUE(same_as_last_sync(path, digest));
  EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::string changed = digest;
  changed[15] = 'c';
  EXPECT_FALSE(same_as_last_sync(path, changed));
  remember_last_sync(path, changed);
  EXPECT_TRUE(same_as_last_sync(path, changed));
  EXPECT_FALSE(same_as_last_sync(path, digest));
  EXPECT_FALSE(same_as_last_sync("", digest));
}

}  // namespace
}  // namespace muster::sync_head
