// scan_tree against real temporary directories: order, kinds, exclusion (flags and .musterignore), stale
// temporaries, the hash cache, and the errors.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "sync/exclude.h"
#include "sync/hash_cache.h"
#include "sync/manifest.h"
#include "temp_tree.h"

namespace muster::sync {
namespace {

using testing::TempTree;

std::vector<std::string> paths(const Manifest& manifest) {
  std::vector<std::string> out;
  for (const auto& entry : manifest.entries) out.push_back(entry.path);
  return out;
}

const Entry* find(const Manifest& manifest, const std::string& path) {
  for (const auto& entry : manifest.entries) {
    if (entry.path == path) return &entry;
  }
  return nullptr;
}

Manifest scan(const std::string& root, const ExcludeRules& rules = {}, HashCache* cache = nullptr) {
  auto manifest = scan_tree(root, rules, cache);
  EXPECT_TRUE(manifest) << manifest.error().message;
  return manifest ? *manifest : Manifest{};
}

TEST(ScanTree, EntriesSortedByBytesWithKindsAndMetadata) {
  TempTree tree;
  tree.write("src/a/b", "bee");
  tree.write("src/a.b", "dot");
  tree.write("src/a-b", "dash");
  tree.write("src/.git/HEAD", "ref: x\n");
  tree.write("src/empty", "");
  tree.symlink("a/b", "src/link");
  tree.mkdir("src/emptydir");
  ::chmod(tree.path("src/a.b").c_str(), 0600);
  tree.set_mtime("src/a.b", 1'000'000);
  tree.set_mtime("src/a", 2'000'000);

  Manifest m = scan(tree.path("src"));
  EXPECT_EQ(paths(m), (std::vector<std::string>{".git", ".git/HEAD", "a", "a-b", "a.b", "a/b", "empty", "emptydir",
                                                "link"}));
  const Entry* dot = find(m, "a.b");
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->kind, EntryKind::file);
  EXPECT_EQ(dot->mode, 0600u);
  EXPECT_EQ(dot->size, 3u);
  EXPECT_EQ(dot->mtime_ns, 1'000'000LL * 1'000'000'000);
  EXPECT_EQ(dot->hash, XXH3_64bits("dot", 3));
  EXPECT_TRUE(dot->target.empty());

  const Entry* a = find(m, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->kind, EntryKind::directory);
  EXPECT_EQ(a->size, 0u);
  EXPECT_EQ(a->hash, 0u);
  EXPECT_EQ(a->mtime_ns, 2'000'000LL * 1'000'000'000);

  const Entry* empty = find(m, "empty");
  EXPECT_EQ(empty->hash, XXH3_64bits("", 0));
  EXPECT_EQ(empty->size, 0u);

  const Entry* link = find(m, "link");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->kind, EntryKind::symlink);
  EXPECT_EQ(link->target, "a/b");
  EXPECT_EQ(link->size, 3u);
  EXPECT_EQ(link->mtime_ns, 0);
  EXPECT_EQ(link->hash, 0u);
  EXPECT_EQ(m.hashed_bytes, 3u + 3u + 4u + 7u);
  EXPECT_TRUE(m.stale_temps.empty());
  // The wire form accepts what the scan produces.
  auto decoded = decode_entries(encode_entries(m.entries));
  ASSERT_TRUE(decoded) << decoded.error().message;
  EXPECT_EQ(*decoded, m.entries);
}

TEST(ScanTree, SymlinksAreRecordedNeverFollowed) {
  TempTree tree;
  tree.write("outside/secret", "s");
  tree.mkdir("src");
  tree.symlink("../outside", "src/dir_link");
  tree.symlink("/nonexistent/dangling", "src/dangling");
  Manifest m = scan(tree.path("src"));
  EXPECT_EQ(paths(m), (std::vector<std::string>{"dangling", "dir_link"}));
  EXPECT_EQ(find(m, "dir_link")->target, "../outside");
  EXPECT_EQ(m.hashed_bytes, 0u);
}

TEST(ScanTree, RootMayBeASymlink) {
  TempTree tree;
  tree.write("real/f", "x");
  tree.symlink("real", "root_link");
  EXPECT_EQ(paths(scan(tree.path("root_link"))), (std::vector<std::string>{"f"}));
  EXPECT_EQ(paths(scan(tree.path("root_link") + "/")), (std::vector<std::string>{"f"}));
}

TEST(ScanTree, MissingRootIsEmptyNotDirectoryIsError) {
  TempTree tree;
  auto missing = scan_tree(tree.path("nope"), {}, nullptr);
  ASSERT_TRUE(missing);
  EXPECT_TRUE(missing->entries.empty());
  tree.write("file", "x");
  auto not_dir = scan_tree(tree.path("file"), {}, nullptr);
  ASSERT_FALSE(not_dir);
  EXPECT_NE(not_dir.error().message.find(tree.path("file")), std::string::npos) << not_dir.error().message;
  EXPECT_NE(not_dir.error().message.find("not a directory"), std::string::npos);
}

// Root reads everything: as root, the scan runs in a child that became uid 65534 (nobody), which owns the tree.
TEST(ScanTree, UnreadableDirectoryIsAnErrorNamingIt) {
  TempTree tree;
  tree.write("src/locked/f", "x");
  bool root = ::geteuid() == 0;
  constexpr uid_t kNobody = 65534;
  if (root) {
    for (const char* path : {"", "/src", "/src/locked", "/src/locked/f"}) {
      ASSERT_EQ(::chown((tree.path("") + path).c_str(), kNobody, kNobody), 0) << path;
    }
  }
  ::chmod(tree.path("src/locked").c_str(), 0);
  std::string locked = tree.path("src/locked");
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (root && (::setgroups(0, nullptr) != 0 || ::setresgid(kNobody, kNobody, kNobody) != 0 ||
                 ::setresuid(kNobody, kNobody, kNobody) != 0)) {
      ::_exit(100);
    }
    auto m = scan_tree(tree.path("src"), {}, nullptr);
    if (m) ::_exit(1);                                                   // the scan went through
    if (m.error().message.find(locked) == std::string::npos) ::_exit(2);  // the error does not name it
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: an unreadable directory did not fail the scan; 2: the error does not "
                                        "name " << locked << "; 100: cannot become uid 65534";
  ::chmod(locked.c_str(), 0700);  // for TempTree's removal
}

TEST(ScanTree, SkipsSocketsAndFifos) {
  TempTree tree;
  tree.write("src/f", "x");
  ASSERT_EQ(::mkfifo(tree.path("src/fifo").c_str(), 0644), 0);
  int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  std::string sock_path = tree.path("src/sock");
  ASSERT_LT(sock_path.size(), sizeof(address.sun_path));
  std::copy(sock_path.begin(), sock_path.end(), address.sun_path);
  ASSERT_EQ(::bind(sock, reinterpret_cast<struct sockaddr*>(&address), sizeof(address)), 0);
  Manifest m = scan(tree.path("src"));
  ::close(sock);
  EXPECT_EQ(paths(m), (std::vector<std::string>{"f"}));
}

TEST(ScanTree, StaleTemporariesAreListedApart) {
  TempTree tree;
  tree.write("src/data.bin", "d");
  tree.write("src/.data.bin.muster-tmp-123-4", "partial");
  tree.write("src/sub/.x.muster-tmp-1-link", "");
  tree.write("src/sub/data.muster-tmp-1", "not ours: no leading dot");
  Manifest m = scan(tree.path("src"));
  EXPECT_EQ(paths(m), (std::vector<std::string>{"data.bin", "sub", "sub/data.muster-tmp-1"}));
  EXPECT_EQ(m.stale_temps, (std::vector<std::string>{".data.bin.muster-tmp-123-4", "sub/.x.muster-tmp-1-link"}));
}

TEST(ScanTree, ExcludeRulesAndExcludedDirectoriesAreNotDescended) {
  TempTree tree;
  tree.write("src/keep.py", "k");
  tree.write("src/x.pyc", "c");
  tree.write("src/build/out.o", "o");
  tree.write("src/build/keep.log", "l");
  tree.write("src/logs/a.log", "a");
  tree.write("src/logs/keep.log", "k");
  ExcludeRules rules;
  ASSERT_TRUE(rules.add("*.pyc"));
  ASSERT_TRUE(rules.add("build/"));
  ASSERT_TRUE(rules.add("*.log"));
  ASSERT_TRUE(rules.add("!keep.log"));
  Manifest m = scan(tree.path("src"), rules);
  // build/keep.log stays out: its directory is excluded, as in git.
  EXPECT_EQ(paths(m), (std::vector<std::string>{"keep.py", "logs", "logs/keep.log"}));
  EXPECT_EQ(m.hashed_bytes, 2u);
}

TEST(ScanTree, IgnoreFilesApplyToTheirOwnSubtreeOnly) {
  TempTree tree;
  tree.write("src/.musterignore", "*.tmp\n/top_only\n");
  tree.write("src/a.tmp", "x");
  tree.write("src/top_only", "x");
  tree.write("src/one/.musterignore", "# sibling two must not see this\n*.dat\n/x\n!keep.tmp\n");
  tree.write("src/one/f.dat", "x");
  tree.write("src/one/x", "x");
  tree.write("src/one/keep.tmp", "x");
  tree.write("src/one/deep/x", "x");
  tree.write("src/one/deep/g.dat", "x");
  tree.write("src/one/top_only", "x");
  tree.write("src/two/f.dat", "x");
  tree.write("src/two/x", "x");
  tree.write("src/two/keep.tmp", "x");
  Manifest m = scan(tree.path("src"));
  EXPECT_EQ(paths(m), (std::vector<std::string>{".musterignore", "one", "one/.musterignore", "one/deep",
                                                "one/deep/x", "one/keep.tmp", "one/top_only", "two", "two/f.dat",
                                                "two/x"}));
}

TEST(ScanTree, BadIgnoreFileIsAnErrorNamingTheLine) {
  TempTree tree;
  tree.write("src/sub/.musterignore", "ok\n[oops\n");
  auto m = scan_tree(tree.path("src"), {}, nullptr);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find(tree.path("src/sub/.musterignore") + ":2"), std::string::npos)
      << m.error().message;
}

TEST(ScanTree, CacheSkipsUnchangedFilesAndNoticesChanges) {
  TempTree tree;
  tree.write("src/a", "alpha");
  tree.write("src/b", "beta");
  HashCache cache = HashCache::load(tree.path("cache/file"));
  Manifest first = scan(tree.path("src"), {}, &cache);
  EXPECT_EQ(first.hashed_bytes, 9u);
  EXPECT_EQ(cache.size(), 2u);
  Manifest second = scan(tree.path("src"), {}, &cache);
  EXPECT_EQ(second.hashed_bytes, 0u);
  EXPECT_EQ(second.entries, first.entries);

  tree.write("src/b", "BETA!");  // same mtime second maybe, but size and ctime change
  Manifest third = scan(tree.path("src"), {}, &cache);
  EXPECT_EQ(third.hashed_bytes, 5u);
  EXPECT_EQ(third.entries[1].hash, XXH3_64bits("BETA!", 5));

  // Through save and load, too.
  ASSERT_TRUE(cache.save());
  HashCache reloaded = HashCache::load(tree.path("cache/file"));
  EXPECT_EQ(scan(tree.path("src"), {}, &reloaded).hashed_bytes, 0u);
}

TEST(ScanTree, WarmCacheOverTwoThousandFilesReadsNothing) {
  TempTree tree;
  for (int d = 0; d < 20; ++d) {
    for (int f = 0; f < 100; ++f) {
      tree.write("src/d" + std::to_string(d) + "/f" + std::to_string(f) + ".py", "print(" + std::to_string(f) + ")\n");
    }
  }
  HashCache cache = HashCache::load(HashCache::path_for(tree.path("src"), tree.path("cache")));
  Manifest cold = scan(tree.path("src"), {}, &cache);
  EXPECT_EQ(cold.entries.size(), 2020u);
  EXPECT_GT(cold.hashed_bytes, 0u);
  cache.forget_unused();
  ASSERT_TRUE(cache.save());
  HashCache warm_cache = HashCache::load(HashCache::path_for(tree.path("src"), tree.path("cache")));
  EXPECT_EQ(warm_cache.size(), 2000u);
  Manifest warm = scan(tree.path("src"), {}, &warm_cache);
  EXPECT_EQ(warm.hashed_bytes, 0u);
  EXPECT_EQ(warm.entries, cold.entries);
}

TEST(ScanTree, HardLinkedNamesAreOneFileAndLinksToItsFirstName) {
  TempTree tree;
  tree.write("z/data", "one inode");
  tree.mkdir("a");
  ASSERT_EQ(::link(tree.path("z/data").c_str(), tree.path("a/second").c_str()), 0);
  ASSERT_EQ(::link(tree.path("z/data").c_str(), tree.path("b").c_str()), 0);
  tree.write("c", "one inode");  // same content, its own inode: a plain file
  Manifest m = scan(tree.base());
  const Entry* first = find(m, "a/second");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->kind, EntryKind::file);
  for (const char* other : {"b", "z/data"}) {
    const Entry* e = find(m, other);
    ASSERT_NE(e, nullptr) << other;
    EXPECT_EQ(e->kind, EntryKind::hardlink) << other;
    EXPECT_EQ(e->target, "a/second") << other;
    EXPECT_EQ(e->hash, first->hash) << other;
    EXPECT_EQ(e->size, first->size) << other;
  }
  EXPECT_EQ(find(m, "c")->kind, EntryKind::file);
  EXPECT_EQ(m.hashed_bytes, 2 * std::string("one inode").size());  // the inode once, and c
  // The wire form accepts what the scan makes.
  EXPECT_TRUE(decode_entries(encode_entries(m.entries)));
}

TEST(ScanTree, FollowedLinksBecomeWhatTheyPointTo) {
  TempTree outside;
  outside.write("lib/libx.so", "library");
  outside.write("lib/sub/h.h", "header");
  outside.write("one.txt", "single file");
  TempTree tree;
  tree.symlink(outside.path("lib"), "lib");
  tree.symlink(outside.path("one.txt"), "one");
  tree.symlink(outside.path("nothing"), "dangling");
  tree.symlink(outside.path("lib"), "kept");
  std::vector<std::string> follow{"lib", "one"};
  auto m = scan_tree(tree.base(), {}, ScanOptions{nullptr, &follow});
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(find(*m, "lib")->kind, EntryKind::directory);
  EXPECT_EQ(find(*m, "lib/libx.so")->kind, EntryKind::file);
  EXPECT_EQ(find(*m, "lib/sub/h.h")->size, 6u);
  EXPECT_EQ(find(*m, "one")->kind, EntryKind::file);
  EXPECT_EQ(find(*m, "one")->size, 11u);
  EXPECT_EQ(find(*m, "kept")->kind, EntryKind::symlink);
  // A link that points to nothing, and a directory that holds the link (a loop): each a problem, all named at
  // once.
  tree.symlink(".", "lib2");
  std::vector<std::string> bad{"dangling", "lib2"};
  auto failed = scan_tree(tree.base(), {}, ScanOptions{nullptr, &bad});
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("2 problems"), std::string::npos) << failed.error().message;
  EXPECT_NE(failed.error().message.find("dangling -> "), std::string::npos) << failed.error().message;
  EXPECT_NE(failed.error().message.find("lib2: the link leads to a directory that holds it"), std::string::npos)
      << failed.error().message;
}

TEST(HashFile, HashesContentAndNamesMissingFiles) {
  TempTree tree;
  std::string big(3 * 1024 * 1024 + 17, 'q');  // crosses the 1 MiB buffer
  tree.write("big", big);
  auto hash = hash_file(tree.path("big"));
  ASSERT_TRUE(hash) << hash.error().message;
  EXPECT_EQ(*hash, XXH3_64bits(big.data(), big.size()));
  auto missing = hash_file(tree.path("missing"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find(tree.path("missing")), std::string::npos);
}

}  // namespace
}  // namespace muster::sync
