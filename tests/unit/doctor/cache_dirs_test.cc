// The job's cache directories from its environment, and the verdict on which nodes share them.
#include "doctor/node/cache_dirs.h"

#include <gtest/gtest.h>

#include "doctor/checks/cache_sharing.h"

namespace muster::doctor {
namespace {

std::map<std::string, std::string> paths(const std::vector<CacheDir>& dirs) {
  std::map<std::string, std::string> out;
  for (const auto& dir : dirs) out[dir.name] = dir.path + (dir.set ? " (set)" : "");
  return out;
}

TEST(CacheDirs, LibraryDefaultsUnderHome) {
  auto got = paths(job_cache_dirs({}, "/home/u"));
  EXPECT_EQ(got, (std::map<std::string, std::string>{
                     {"XDG_CACHE_HOME", "/home/u/.cache"},
                     {"HF_HOME", "/home/u/.cache/huggingface"},
                     {"HF_DATASETS_CACHE", "/home/u/.cache/huggingface/datasets"},
                     {"HF_HUB_CACHE", "/home/u/.cache/huggingface/hub"},
                     {"TORCH_HOME", "/home/u/.cache/torch"},
                     {"TORCH_EXTENSIONS_DIR", "/home/u/.cache/torch_extensions"},
                     {"TRITON_CACHE_DIR", "/home/u/.triton/cache"}}));
}

TEST(CacheDirs, VariablesWinAndEmptyOnesDoNot) {
  auto got = paths(job_cache_dirs({{"XDG_CACHE_HOME", "/x"}, {"HF_HOME", "/hf"}, {"TRANSFORMERS_CACHE", "/tc"},
                                   {"TORCH_HOME", ""}, {"HF_DATASETS_CACHE", "/shared/ds"}},
                                  "/home/u"));
  EXPECT_EQ(got["HF_HOME"], "/hf (set)");
  EXPECT_EQ(got["HF_DATASETS_CACHE"], "/shared/ds (set)");
  EXPECT_EQ(got["TRANSFORMERS_CACHE"], "/tc (set)");  // the hub cache under its older name
  EXPECT_EQ(got.count("HF_HUB_CACHE"), 0u);
  EXPECT_EQ(got["TORCH_HOME"], "/x/torch");  // empty counts as unset
  EXPECT_EQ(got["TORCH_EXTENSIONS_DIR"], "/x/torch_extensions");
  EXPECT_TRUE(propagated_by_default("HF_DATASETS_CACHE"));
  EXPECT_FALSE(propagated_by_default("XDG_CACHE_HOME"));
  EXPECT_FALSE(propagated_by_default("TRITON_CACHE_DIR"));
}

TEST(CacheSharing, OneWarningPerGroupNamingEachSharedCache) {
  std::vector<std::string> names{"n1", "n2", "n3"};
  std::vector<NodeFacts> facts(3);
  for (auto& node : facts) {
    node.caches = {{"HF_DATASETS_CACHE", "/shared/ds", true, "/shared"}, {"HF_HOME", "/root/.cache/hf", false, "/root"}};
  }
  // Every node sees every node's marker for the datasets cache, only its own for HF_HOME.
  std::vector<std::vector<std::set<size_t>>> seen(3, {{0, 1, 2}, {}});
  for (size_t n = 0; n < 3; ++n) seen[n][1] = {n};
  auto findings = judge_cache_sharing(names, facts, seen);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_EQ(findings[0].node, "");
  EXPECT_NE(findings[0].message.find("shared by n[1-3]"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("HF_DATASETS_CACHE=/shared/ds"), std::string::npos);
  EXPECT_EQ(findings[0].message.find("HF_HOME"), std::string::npos);
  EXPECT_NE(findings[0].fix.find("--node-local-caches"), std::string::npos);
  // Nothing shared: one ok finding. No node reported caches: nothing.
  for (size_t n = 0; n < 3; ++n) seen[n][0] = {n};
  findings = judge_cache_sharing(names, facts, seen);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::ok);
  EXPECT_TRUE(judge_cache_sharing(names, std::vector<NodeFacts>(3), seen).empty());
}

}  // namespace
}  // namespace muster::doctor
