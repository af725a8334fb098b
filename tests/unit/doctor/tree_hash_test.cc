#include "doctor/node/tree_hash.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace muster::doctor {
namespace {

namespace fs = std::filesystem;

class TreeHashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("muster-tree-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    make_tree(root_ / "a");
    make_tree(root_ / "b");
  }
  void TearDown() override { fs::remove_all(root_); }

  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }
  static void make_tree(const fs::path& dir) {
    write(dir / "train.py", "print('hello')\n");
    write(dir / "lib" / "model.py", "class Model: pass\n");
    write(dir / "lib" / "data.bin", std::string(100000, 'x'));
    write(dir / "empty.txt", "");
  }

  fs::path root_;
};

TEST_F(TreeHashTest, SameContentSameHash) {
  auto a = hash_tree(root_ / "a");
  auto b = hash_tree(root_ / "b");
  EXPECT_EQ(a.files, 4);
  EXPECT_EQ(a.bytes, 100000 + 15 + 18);
  EXPECT_EQ(a.hash.size(), 16u);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.file_hashes, b.file_hashes);
  EXPECT_EQ(a.file_hashes.count("lib/model.py"), 1u);
}

TEST_F(TreeHashTest, OneByteChangedIsNamed) {
  write(root_ / "b" / "lib" / "data.bin", std::string(99999, 'x') + "y");
  auto a = hash_tree(root_ / "a");
  auto b = hash_tree(root_ / "b");
  EXPECT_NE(a.hash, b.hash);
  for (const auto& [path, hash] : a.file_hashes) {
    EXPECT_EQ(hash == b.file_hashes.at(path), path != "lib/data.bin") << path;
  }
}

TEST_F(TreeHashTest, RenameChangesHashSkippedDirectoriesDoNot) {
  auto before = hash_tree(root_ / "b").hash;
  write(root_ / "b" / ".git" / "HEAD", "ref: refs/heads/main\n");
  write(root_ / "b" / "lib" / "__pycache__" / "model.cpython-311.pyc", "junk");
  fs::create_symlink("train.py", root_ / "b" / "link.py");
  EXPECT_EQ(hash_tree(root_ / "b").hash, before);
  fs::rename(root_ / "b" / "train.py", root_ / "b" / "train2.py");
  EXPECT_NE(hash_tree(root_ / "b").hash, before);
}

// The shared-filesystem test's marker (and its temporary) lands in a path while other nodes hash it.
TEST_F(TreeHashTest, DoctorsMarkerFilesDoNotCount) {
  write(root_ / "b" / ".muster-doctor-0123456789abcdef", "");
  write(root_ / "b" / "lib" / ".muster-doctor-0123456789abcdef-3.tmp-abc", "x");
  EXPECT_EQ(hash_tree(root_ / "a").hash, hash_tree(root_ / "b").hash);
  write(root_ / "b" / ".muster-other", "");
  EXPECT_NE(hash_tree(root_ / "a").hash, hash_tree(root_ / "b").hash);
}

TEST_F(TreeHashTest, LimitsGiveEmptyHash) {
  auto by_files = hash_tree(root_ / "a", {.max_files = 3});
  EXPECT_TRUE(by_files.too_big);
  EXPECT_EQ(by_files.hash, "");
  EXPECT_TRUE(by_files.file_hashes.empty());
  auto by_bytes = hash_tree(root_ / "a", {.max_bytes = 1000});
  EXPECT_TRUE(by_bytes.too_big);
  auto unnamed = hash_tree(root_ / "a", {.max_named_files = 2});
  EXPECT_FALSE(unnamed.too_big);
  EXPECT_EQ(unnamed.hash.size(), 16u);
  EXPECT_TRUE(unnamed.file_hashes.empty());
}

TEST_F(TreeHashTest, SingleFileAndMissingPath) {
  auto file = hash_tree((root_ / "a" / "train.py").string());
  EXPECT_EQ(file.files, 1);
  EXPECT_EQ(file.file_hashes.count("train.py"), 1u);
  auto missing = hash_tree((root_ / "nope").string());
  EXPECT_EQ(missing.files, 0);
  EXPECT_FALSE(missing.too_big);
}

}  // namespace
}  // namespace muster::doctor
