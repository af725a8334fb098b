// HashCache: identity checks, the file round trip (a damaged file is an empty cache), where it lives, and
// pruning of files that went away. Never touches the real ~/.cache.
#include "sync/hash_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "temp_tree.h"

namespace muster::sync {
namespace {

using testing::TempTree;

const FileIdentity kId{100, 1'000, 2'000, 42, 7};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Sets an environment variable for the scope of one test, restoring it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(HashCache, LookupNeedsEveryIdentityField) {
  HashCache cache;
  cache.store("a/b", kId, 0xabc);
  EXPECT_EQ(cache.lookup("a/b", kId), 0xabcu);
  EXPECT_FALSE(cache.lookup("a/c", kId));
  for (int field = 0; field < 5; ++field) {
    FileIdentity other = kId;
    if (field == 0) other.size += 1;
    if (field == 1) other.mtime_ns += 1;
    if (field == 2) other.ctime_ns += 1;
    if (field == 3) other.inode += 1;
    if (field == 4) other.device += 1;
    EXPECT_FALSE(cache.lookup("a/b", other)) << "field " << field;
  }
  cache.store("a/b", FileIdentity{1, 2, 3, 4, 5}, 0xdef);
  EXPECT_EQ(cache.lookup("a/b", FileIdentity{1, 2, 3, 4, 5}), 0xdefu);
  EXPECT_FALSE(cache.lookup("a/b", kId));
  EXPECT_EQ(cache.size(), 1u);
}

TEST(HashCache, SaveAndLoadRoundTripCreatingDirectories) {
  TempTree tree;
  std::string file = tree.path("deep/er/cache");
  HashCache cache = HashCache::load(file);
  EXPECT_EQ(cache.size(), 0u);
  cache.store("x", kId, 1);
  cache.store("dir/name with spaces\nand newline", FileIdentity{0, -5, -6, 1, 2}, UINT64_MAX);
  ASSERT_TRUE(cache.save());
  HashCache loaded = HashCache::load(file);
  EXPECT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded.lookup("x", kId), 1u);
  EXPECT_EQ(loaded.lookup("dir/name with spaces\nand newline", FileIdentity{0, -5, -6, 1, 2}), UINT64_MAX);
  // No temporary left next to it.
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(tree.path("deep/er"))) ++files;
  EXPECT_EQ(files, 1);
}

// Loaded entries are found in any order (a scan asks in walk order, which is not always byte order: "a/b" comes
// before "a.x" in a walk), stored ones join them, and a second save and load keeps every one exactly once.
TEST(HashCache, LookupsInAnyOrderAndStoresJoinTheLoadedEntries) {
  TempTree tree;
  std::string file = tree.path("cache");
  HashCache cache = HashCache::load(file);
  std::vector<std::string> paths = {"a.x", "a/b", "a/c", "b", "c/d/e", "z"};
  for (size_t i = 0; i < paths.size(); ++i) cache.store(paths[i], kId, i);
  ASSERT_TRUE(cache.save());
  HashCache loaded = HashCache::load(file);
  ASSERT_EQ(loaded.size(), paths.size());
  for (size_t i : {1, 2, 0, 5, 3, 4, 4, 0}) EXPECT_EQ(loaded.lookup(paths[i], kId), i) << paths[i];
  EXPECT_FALSE(loaded.lookup("a", kId));
  loaded.store("a/bb", kId, 77);     // new, between loaded ones
  loaded.store("c/d/e", kId, 44);    // changed
  EXPECT_EQ(loaded.lookup("a/bb", kId), 77u);
  loaded.forget_unused();            // every loaded entry was looked up: all stay
  ASSERT_TRUE(loaded.save());
  HashCache again = HashCache::load(file);
  EXPECT_EQ(again.size(), paths.size() + 1);
  EXPECT_EQ(again.lookup("a/bb", kId), 77u);
  EXPECT_EQ(again.lookup("c/d/e", kId), 44u);
  EXPECT_EQ(again.lookup("a/b", kId), 1u);
}

TEST(HashCache, SaveIsANoOpWhenNothingChanged) {
  TempTree tree;
  std::string file = tree.path("cache");
  HashCache empty = HashCache::load(file);
  ASSERT_TRUE(empty.save());
  EXPECT_FALSE(std::filesystem::exists(file));  // nothing to remember: nothing written

  HashCache cache = HashCache::load(file);
  cache.store("x", kId, 1);
  ASSERT_TRUE(cache.save());
  std::filesystem::remove(file);
  HashCache again = HashCache::load(file);  // empty now
  again.store("x", kId, 1);
  ASSERT_TRUE(again.save());
  ASSERT_TRUE(std::filesystem::exists(file));

  HashCache unchanged = HashCache::load(file);
  EXPECT_EQ(unchanged.lookup("x", kId), 1u);
  unchanged.store("x", kId, 1);  // the same again: not a change
  unchanged.forget_unused();     // everything was used
  std::filesystem::remove(file);
  ASSERT_TRUE(unchanged.save());
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST(HashCache, DamagedFilesAreEmptyCaches) {
  TempTree tree;
  std::string file = tree.path("cache");
  HashCache cache = HashCache::load(file);
  for (int i = 0; i < 10; ++i) cache.store("file" + std::to_string(i), kId, static_cast<uint64_t>(i));
  ASSERT_TRUE(cache.save());
  std::string good = slurp(file);
  ASSERT_EQ(HashCache::load(file).size(), 10u);

  auto load_bytes = [&](const std::string& bytes) {
    tree.write("cache", bytes);
    return HashCache::load(file).size();
  };
  EXPECT_EQ(load_bytes(""), 0u);
  EXPECT_EQ(load_bytes("garbage"), 0u);
  for (size_t cut : {good.size() - 1, good.size() / 2, size_t{30}, size_t{5}}) {
    EXPECT_EQ(load_bytes(good.substr(0, cut)), 0u) << cut;
  }
  for (size_t at : {size_t{0}, size_t{26}, good.size() / 2, good.size() - 1}) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    EXPECT_EQ(load_bytes(flipped), 0u) << at;
  }
  EXPECT_EQ(load_bytes(good + "x"), 0u);
  EXPECT_EQ(load_bytes(good), 10u);
  // A directory where the file should be: empty, and save reports the failure.
  std::filesystem::remove(file);
  tree.mkdir("cache");
  HashCache blocked = HashCache::load(file);
  EXPECT_EQ(blocked.size(), 0u);
  blocked.store("x", kId, 1);
  auto saved = blocked.save();
  ASSERT_FALSE(saved);
  EXPECT_NE(saved.error().message.find(file), std::string::npos) << saved.error().message;
}

TEST(HashCache, ForgetUnusedDropsFilesThatWentAway) {
  TempTree tree;
  std::string file = tree.path("cache");
  HashCache cache = HashCache::load(file);
  cache.store("kept", kId, 1);
  cache.store("changed", kId, 2);
  cache.store("gone", kId, 3);
  ASSERT_TRUE(cache.save());

  HashCache next = HashCache::load(file);
  EXPECT_EQ(next.lookup("kept", kId), 1u);
  FileIdentity edited = kId;
  edited.ctime_ns += 1;
  EXPECT_FALSE(next.lookup("changed", edited));  // looked up: still there, just changed
  next.forget_unused();
  EXPECT_EQ(next.size(), 2u);
  EXPECT_FALSE(next.lookup("gone", kId));
  ASSERT_TRUE(next.save());
  EXPECT_EQ(HashCache::load(file).size(), 2u);
}

TEST(HashCache, PathForHashesTheAbsoluteRoot) {
  std::string a = HashCache::path_for("/data/project", "/c");
  EXPECT_EQ(a.rfind("/c/", 0), 0u) << a;
  EXPECT_EQ(a.size(), 3u + 16u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef", 3), std::string::npos) << a;
  EXPECT_EQ(HashCache::path_for("/data/project/", "/c"), a);
  EXPECT_EQ(HashCache::path_for("/data/./other/../project", "/c"), a);
  EXPECT_NE(HashCache::path_for("/data/project2", "/c"), a);
  std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(HashCache::path_for("rel", "/c"), HashCache::path_for(cwd + "/rel", "/c"));
}

TEST(HashCache, DefaultDirectoryFollowsXdgThenHome) {
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(HashCache::path_for("/r").rfind("/xdg/muster/sync/", 0), 0u) << HashCache::path_for("/r");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(HashCache::path_for("/r").rfind("/home/u/.cache/muster/sync/", 0), 0u) << HashCache::path_for("/r");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/ignored");
    ScopedEnv home("HOME", "/home/u");
    EXPECT_EQ(HashCache::path_for("/r").rfind("/home/u/.cache/muster/sync/", 0), 0u) << HashCache::path_for("/r");
  }
  EXPECT_EQ(HashCache::path_for("/r", "/explicit").rfind("/explicit/", 0), 0u);
}

// The cache decides which files sync reads again: whoever could write it could make sync skip a changed file. Its
// directory is created 0700 and refused when others can write it or another user owns it; a cache file that others
// could write is not believed.
TEST(HashCache, TheCacheDirectoryIsPrivateAndAnUnsafeOneIsRefused) {
  TempTree tree;
  std::string file = tree.path("c/cache");
  HashCache cache = HashCache::load(file);
  cache.store("x", kId, 1);
  ASSERT_TRUE(cache.save());
  EXPECT_EQ(std::filesystem::status(tree.path("c")).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  EXPECT_EQ(std::filesystem::status(file).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  ::chmod(tree.path("c").c_str(), 0770);
  HashCache again = HashCache::load(file);
  again.store("y", kId, 2);
  auto saved = again.save();
  ASSERT_FALSE(saved);
  EXPECT_NE(saved.error().message.find("refusing " + tree.path("c") + ": it is writable by its group or others"),
            std::string::npos)
      << saved.error().message;
  // Another user's directory: root gives one away; any other user finds one of root's (/) behind a link.
  std::string owner;
  if (::geteuid() == 0) {
    ::chmod(tree.path("c").c_str(), 0700);
    ASSERT_EQ(::chown(tree.path("c").c_str(), 65534, 65534), 0);
    owner = "65534";
  } else {
    std::filesystem::remove_all(tree.path("c"));
    std::filesystem::create_directory_symlink("/", tree.path("c"));
    owner = "0";
  }
  saved = again.save();
  ASSERT_FALSE(saved);
  EXPECT_NE(saved.error().message.find("refusing " + tree.path("c") + ": it belongs to uid " + owner),
            std::string::npos)
      << saved.error().message;
}

TEST(HashCache, ACacheFileOthersCouldWriteIsNotBelieved) {
  TempTree tree;
  std::string file = tree.path("cache");
  HashCache cache = HashCache::load(file);
  cache.store("x", kId, 1);
  ASSERT_TRUE(cache.save());
  EXPECT_EQ(HashCache::load(file).size(), 1u);
  ::chmod(file.c_str(), 0666);
  EXPECT_EQ(HashCache::load(file).size(), 0u);
  ::chmod(file.c_str(), 0600);
  std::filesystem::create_symlink(file, tree.path("link"));
  EXPECT_EQ(HashCache::load(tree.path("link")).size(), 0u);  // never through a symbolic link
}

}  // namespace
}  // namespace muster::sync
