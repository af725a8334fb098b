// --node-local-caches: the variables a node's job gets, and the directory made on the node.
#include "launch/node_caches.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

namespace muster::launch {
namespace {

TEST(NodeCaches, EveryCacheUnderTheNodesDirectoryAndUserHubVariablesOverridden) {
  EnvList env = node_cache_env("/tmp/c/n1", {{"TRANSFORMERS_CACHE", "/shared/tc"}, {"HF_TOKEN", "x"}});
  EXPECT_EQ(env, (EnvList{{"HF_DATASETS_CACHE", "/tmp/c/n1/huggingface/datasets"},
                          {"HF_HOME", "/tmp/c/n1/huggingface"},
                          {"TORCH_EXTENSIONS_DIR", "/tmp/c/n1/torch_extensions"},
                          {"TORCH_HOME", "/tmp/c/n1/torch"},
                          {"TRANSFORMERS_CACHE", "/tmp/c/n1/huggingface/hub"},
                          {"TRITON_CACHE_DIR", "/tmp/c/n1/triton"},
                          {"XDG_CACHE_HOME", "/tmp/c/n1/xdg"}}));
}

TEST(NodeCaches, MadePrivateAndNeverThroughALinkOrSomeoneElsesDirectory) {
  namespace fs = std::filesystem;
  char pattern[] = "/tmp/muster-node-cache-test.XXXXXX";
  std::string base = ::mkdtemp(pattern);
  auto dir = make_node_cache_dir(base + "/a/b");
  ASSERT_TRUE(dir) << dir.error().message;
  struct stat st;
  ASSERT_EQ(::stat(dir->c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(fs::path(*dir).parent_path(), base + "/a/b");
  EXPECT_TRUE(make_node_cache_dir(base + "/a/b")) << "a second time is fine";
  fs::create_directory_symlink(base + "/a/b", base + "/link");
  auto through_link = make_node_cache_dir(base + "/link");
  ASSERT_FALSE(through_link);
  EXPECT_NE(through_link.error().message.find("symbolic link"), std::string::npos) << through_link.error().message;
  fs::create_directory(base + "/open");
  ::chmod((base + "/open").c_str(), 0777);
  auto writable = make_node_cache_dir(base + "/open");
  ASSERT_FALSE(writable);
  EXPECT_NE(writable.error().message.find("others can write"), std::string::npos) << writable.error().message;
  fs::remove_all(base);
}

}  // namespace
}  // namespace muster::launch
