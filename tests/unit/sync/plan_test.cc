// plan_sync: what one destination needs, for every pairing of source and destination entries, with and
// without --delete, and the orders the receiver relies on.
#include "sync/plan.h"

#include <algorithm>
#include <functional>
#include <random>

#include <gtest/gtest.h>

namespace muster::sync {
namespace {

Entry dir(std::string path, uint32_t mode = 0755, int64_t mtime = 100) {
  return Entry{std::move(path), EntryKind::directory, mode, 0, mtime, 0, ""};
}
// hash 0: one derived from the path, so that files of different paths have different content unless a test says
// otherwise (identical content moves once: see ContentOnce below).
Entry file(std::string path, uint64_t hash = 0, uint64_t size = 10, uint32_t mode = 0644, int64_t mtime = 200) {
  if (hash == 0) hash = std::hash<std::string>()(path) | 1;
  return Entry{std::move(path), EntryKind::file, mode, size, mtime, hash, ""};
}
Entry hardlink(std::string path, std::string target, uint64_t hash = 0) {
  Entry entry = file(target, hash);
  entry.path = std::move(path);
  entry.kind = EntryKind::hardlink;
  entry.target = std::move(target);
  return entry;
}
Entry link(std::string path, std::string target) {
  uint64_t size = target.size();
  return Entry{std::move(path), EntryKind::symlink, 0777, size, 0, 0, std::move(target)};
}

Manifest manifest(std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });
  return Manifest{std::move(entries), {}, 0};
}

std::vector<std::string> paths(const std::vector<Entry>& entries) {
  std::vector<std::string> out;
  for (const auto& entry : entries) out.push_back(entry.path);
  return out;
}

using Paths = std::vector<std::string>;

// The plan as paths only, for compact expectations.
struct PlanPaths {
  Paths remove, make_dirs, send, links, touch, dir_meta, copies = {}, hardlinks = {};
  bool operator==(const PlanPaths&) const = default;
};

PlanPaths plan_paths(const SyncPlan& plan) {
  return PlanPaths{plan.remove,     paths(plan.make_dirs), paths(plan.send),   paths(plan.links),
                   paths(plan.touch), paths(plan.dir_meta), paths(plan.copies), paths(plan.hardlinks)};
}

std::ostream& operator<<(std::ostream& out, const PlanPaths& p) {
  auto list = [&](const char* name, const Paths& items) {
    out << name << "{";
    for (const auto& item : items) out << item << ",";
    out << "} ";
  };
  list("remove", p.remove);
  list("make_dirs", p.make_dirs);
  list("send", p.send);
  list("links", p.links);
  list("touch", p.touch);
  list("dir_meta", p.dir_meta);
  list("copies", p.copies);
  list("hardlinks", p.hardlinks);
  return out;
}

struct PlanCase {
  const char* name;
  std::vector<Entry> source;
  std::vector<Entry> destination;
  bool delete_extraneous;
  PlanPaths expected;
};

class PlanTable : public ::testing::TestWithParam<PlanCase> {};

TEST_P(PlanTable, Plans) {
  const auto& c = GetParam();
  SyncPlan plan = plan_sync(manifest(c.source), manifest(c.destination), c.delete_extraneous);
  EXPECT_EQ(plan_paths(plan), c.expected) << c.name;
}

std::string case_name(const ::testing::TestParamInfo<PlanCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(
    Cases, PlanTable,
    ::testing::Values(
        PlanCase{"BothEmpty", {}, {}, true, {}},
        PlanCase{"IdenticalTreesNeedNothing",
                 {dir("a"), file("a/f"), link("a/l", "f"), file("g")},
                 {dir("a"), file("a/f"), link("a/l", "f"), file("g")},
                 true,
                 {}},
        PlanCase{"EverythingNewOnAnEmptyDestination",
                 {dir("a"), dir("a/b"), file("a/b/f"), link("a/l", "b/f"), file("top")},
                 {},
                 true,
                 {{}, {"a", "a/b"}, {"a/b/f", "top"}, {"a/l"}, {}, {"a/b", "a"}}},
        PlanCase{"ContentChangeIsSentAndItsDirectoryRetimed",
                 {dir("a"), file("a/f", 2), file("g", 1, 11)},
                 {dir("a"), file("a/f", 1), file("g", 1, 10)},
                 false,
                 {{}, {}, {"a/f", "g"}, {}, {}, {"a"}}},
        PlanCase{"MetadataOnlyIsTouchedAndLeavesTheDirectoryAlone",
                 {dir("a"), file("a/f", 1, 10, 0755), file("a/g", 1, 10, 0644, 999)},
                 {dir("a"), file("a/f", 1, 10, 0644), file("a/g", 1, 10, 0644, 200)},
                 false,
                 {{}, {}, {}, {}, {"a/f", "a/g"}, {}}},
        PlanCase{"DirectoryModeOrTimeDiffers",
                 {dir("a", 0700), dir("b", 0755, 5), dir("c")},
                 {dir("a", 0755), dir("b", 0755, 6), dir("c")},
                 false,
                 {{}, {}, {}, {}, {}, {"b", "a"}}},
        PlanCase{"SymlinkTargetChangedIsRemade",
                 {dir("d"), link("d/l", "new"), link("same", "x")},
                 {dir("d"), link("d/l", "old"), link("same", "x")},
                 false,
                 {{}, {}, {}, {"d/l"}, {}, {"d"}}},
        PlanCase{"ExtraneousKeptWithoutDelete",
                 {dir("a"), file("a/f")},
                 {dir("a"), file("a/f"), file("a/extra"), dir("old"), file("old/x")},
                 false,
                 {}},
        PlanCase{"ExtraneousDeletedChildrenFirst",
                 {dir("a"), file("a/f")},
                 {dir("a"), file("a/f"), file("a/extra"), dir("old"), dir("old/sub"), file("old/sub/x"),
                  file("old.txt")},
                 true,
                 {{"old/sub/x", "old/sub", "old.txt", "old", "a/extra"}, {}, {}, {}, {}, {"a"}}},
        PlanCase{"FileWhereSourceHasDirectory",
                 {dir("x"), file("x/f")},
                 {file("x")},
                 false,
                 {{"x"}, {"x"}, {"x/f"}, {}, {}, {"x"}}},
        PlanCase{"DirectoryWhereSourceHasFileRemovesItsContentsEvenWithoutDelete",
                 {dir("p"), file("p/x")},
                 {dir("p"), dir("p/x"), dir("p/x/y"), file("p/x/y/z"), file("p/x.keep"), link("p/x/l", "y")},
                 false,
                 {{"p/x/y/z", "p/x/y", "p/x/l", "p/x"}, {}, {"p/x"}, {}, {}, {"p"}}},
        PlanCase{"SymlinkWhereSourceHasDirectory",
                 {dir("d"), file("d/f")},
                 {link("d", "/etc")},
                 false,
                 {{"d"}, {"d"}, {"d/f"}, {}, {}, {"d"}}},
        PlanCase{"FileWhereSourceHasSymlink",
                 {dir("a"), link("a/l", "t")},
                 {dir("a"), file("a/l")},
                 false,
                 {{"a/l"}, {}, {}, {"a/l"}, {}, {"a"}}},
        PlanCase{"NewDirectoryRetimesItsParent",
                 {dir("a"), dir("a/new"), dir("a/new/deeper")},
                 {dir("a")},
                 false,
                 {{}, {"a/new", "a/new/deeper"}, {}, {}, {}, {"a/new/deeper", "a/new", "a"}}},
        PlanCase{"RootLevelChangesNeedNoRootEntry",
                 {file("f", 2)},
                 {file("f", 1), file("gone")},
                 true,
                 {{"gone"}, {}, {"f"}, {}, {}, {}}},
        PlanCase{"SortOrderWithDotAndSlash",
                 {dir("a"), file("a.b"), file("a/b"), dir("a-c"), file("a-c/x")},
                 {},
                 false,
                 {{}, {"a", "a-c"}, {"a-c/x", "a.b", "a/b"}, {}, {}, {"a-c", "a"}}}),
    case_name);

TEST(PlanSync, SendBytesAndCarriedEntries) {
  Manifest source = manifest({dir("a", 0700, 5), file("a/big", 9, 1'000'000, 0600, 77), file("b", 3, 24)});
  SyncPlan plan = plan_sync(source, manifest({}), false);
  EXPECT_EQ(plan.send_bytes, 1'000'024u);
  ASSERT_EQ(plan.send.size(), 2u);
  EXPECT_EQ(plan.send[0], source.entries[1]);  // the source's entry: mode, mtime, hash for the receiver
  ASSERT_EQ(plan.make_dirs.size(), 1u);
  EXPECT_EQ(plan.make_dirs[0], source.entries[0]);
  ASSERT_EQ(plan.dir_meta.size(), 1u);
  EXPECT_EQ(plan.dir_meta[0], source.entries[0]);
  EXPECT_FALSE(plan.empty());
  EXPECT_TRUE(plan_sync(source, source, true).empty());
  EXPECT_EQ(plan_sync(source, source, true).send_bytes, 0u);
}

TEST(PlanSync, RemovalsAlwaysPrecedeTheirParents) {
  std::vector<Entry> dest;
  for (const char* path : {"a", "a/b", "a/b/c", "a.x", "a-b", "a/b.c", "b", "b/a", "b/a/b"}) {
    dest.push_back(std::string(path).find('.') == std::string::npos ? dir(path) : file(path));
  }
  SyncPlan plan = plan_sync(manifest({}), manifest(dest), true);
  ASSERT_EQ(plan.remove.size(), dest.size());
  for (size_t i = 0; i < plan.remove.size(); ++i) {
    for (size_t j = i + 1; j < plan.remove.size(); ++j) {
      EXPECT_NE(plan.remove[j].rfind(plan.remove[i] + "/", 0), 0u)
          << plan.remove[i] << " comes before its child " << plan.remove[j];
    }
  }
}

TEST(PlanSync, DeterministicWhateverTheDestinationOrder) {
  std::vector<Entry> source{dir("a"), file("a/f", 1), dir("b"), file("b/g", 2), link("c", "a/f")};
  std::vector<Entry> dest{dir("a"), file("a/f", 9), file("b"), dir("z"), file("z/old"), link("c", "b/g")};
  SyncPlan reference = plan_sync(manifest(source), manifest(dest), true);
  std::mt19937 random(7);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(dest.begin(), dest.end(), random);
    Manifest unsorted{dest, {}, 0};
    SyncPlan plan = plan_sync(manifest(source), unsorted, true);
    EXPECT_EQ(plan_paths(plan), plan_paths(reference));
  }
  EXPECT_EQ(plan_paths(reference),
            (PlanPaths{{"z/old", "z", "b"}, {"b"}, {"a/f", "b/g"}, {"c"}, {}, {"b", "a"}}));
}

}  // namespace
}  // namespace muster::sync

namespace muster::sync {
namespace {

// Identical content moves once: from content the node already holds where this sync leaves it alone, or from a
// file this sync brings; never from a path the sync removes or replaces.
TEST(ContentOnce, IdenticalContentIsCopiedOnTheNode) {
  // Two new files with the same content: one is sent, the other copied from it.
  SyncPlan plan = plan_sync(manifest({file("a", 5), file("b", 5), file("c", 6)}), manifest({}), false);
  EXPECT_EQ(paths(plan.send), (Paths{"a", "c"}));
  ASSERT_EQ(plan.copies.size(), 1u);
  EXPECT_EQ(plan.copies[0].path, "b");
  EXPECT_EQ(plan.copies[0].target, "a");
  EXPECT_EQ(plan.copies[0].kind, EntryKind::copy);
  EXPECT_EQ(plan.send_bytes, 20u);

  // A renamed file: the node has the content under its old name, which stays (no --delete).
  plan = plan_sync(manifest({file("new", 7)}), manifest({file("old", 7)}), false);
  EXPECT_TRUE(plan.send.empty());
  ASSERT_EQ(plan.copies.size(), 1u);
  EXPECT_EQ(plan.copies[0].target, "old");

  // ... but not from a name this sync deletes (--delete runs before the files arrive).
  plan = plan_sync(manifest({file("new", 7)}), manifest({file("old", 7)}), true);
  EXPECT_EQ(paths(plan.send), (Paths{"new"}));
  EXPECT_TRUE(plan.copies.empty());

  // ... nor from a name whose content changes, nor from an empty file.
  plan = plan_sync(manifest({file("a", 8), file("b", 7)}), manifest({file("a", 7)}), false);
  EXPECT_EQ(paths(plan.send), (Paths{"a", "b"}));
  Entry empty = file("e", 9, 0);
  Entry empty2 = file("f", 9, 0);
  plan = plan_sync(manifest({empty, empty2}), manifest({}), false);
  EXPECT_EQ(paths(plan.send), (Paths{"e", "f"}));
}

TEST(HardLinks, LinkedOnTheNodeOnceAndOnlyWhenNeeded) {
  // First sync: the file is sent, its other names are hard links to it.
  std::vector<Entry> source{file("a", 5), hardlink("b", "a", 5), hardlink("c/d", "a", 5), dir("c")};
  SyncPlan plan = plan_sync(manifest(source), manifest({}), false);
  EXPECT_EQ(paths(plan.send), (Paths{"a"}));
  EXPECT_EQ(paths(plan.hardlinks), (Paths{"b", "c/d"}));
  EXPECT_TRUE(plan.copies.empty());
  // The node holds the same links: nothing to do.
  plan = plan_sync(manifest(source), manifest(source), false);
  EXPECT_TRUE(plan.empty());
  // The file changed: it is renewed (a new inode), so its names are linked again.
  std::vector<Entry> changed{file("a", 6), hardlink("b", "a", 6), hardlink("c/d", "a", 6), dir("c")};
  plan = plan_sync(manifest(changed), manifest(source), false);
  EXPECT_EQ(paths(plan.send), (Paths{"a"}));
  EXPECT_EQ(paths(plan.hardlinks), (Paths{"b", "c/d"}));
  // The node has the names as separate files: they are replaced by links (removed first: another kind).
  std::vector<Entry> separate{file("a", 5), file("b", 5), dir("c"), file("c/d", 5)};
  plan = plan_sync(manifest(source), manifest(separate), false);
  EXPECT_TRUE(plan.send.empty());
  EXPECT_EQ(paths(plan.hardlinks), (Paths{"b", "c/d"}));
  EXPECT_EQ(plan.remove, (Paths{"c/d", "b"}));
  // A metadata change of the file is one touch of the file (its names share it).
  std::vector<Entry> chmodded = source;
  chmodded[0].mode = 0600;
  plan = plan_sync(manifest(chmodded), manifest(source), false);
  EXPECT_EQ(paths(plan.touch), (Paths{"a"}));
  EXPECT_TRUE(plan.hardlinks.empty());
}


// plan_digest stands for what plan_sync compares: equal manifests (in any order) give equal digests, and a change
// of any compared field gives another digest, so a node whose digest matches is one whose plan would be empty.
TEST(PlanDigest, EqualManifestsEqualDigestsAndAnEmptyPlan) {
  std::vector<Entry> tree{dir("c"), file("a", 5), hardlink("b", "a", 5), link("c/l", "../a"), file("c/d", 7)};
  std::vector<Entry> shuffled{tree[4], tree[2], tree[0], tree[3], tree[1]};
  EXPECT_EQ(plan_digest(tree), plan_digest(shuffled));
  EXPECT_EQ(plan_digest(tree).size(), 16u);
  EXPECT_TRUE(plan_sync(manifest(tree), manifest(shuffled), true).empty());
  EXPECT_EQ(plan_digest({}), plan_digest({}));
  EXPECT_NE(plan_digest({}), plan_digest(tree));
}

TEST(PlanDigest, AnyComparedFieldChangedChangesTheDigest) {
  const std::vector<Entry> tree{dir("c"), file("a", 5), hardlink("b", "a", 5), link("c/l", "../a"), file("c/d", 7)};
  const std::string base = plan_digest(tree);
  std::vector<std::pair<const char*, std::function<void(std::vector<Entry>&)>>> changes{
      {"file mtime (same size, same content)", [](auto& t) { t[1].mtime_ns += 1; }},
      {"file content (same size, same mtime)", [](auto& t) { t[1].hash ^= 1; }},
      {"file size", [](auto& t) { t[1].size += 1; }},
      {"file mode", [](auto& t) { t[1].mode = 0600; }},
      {"file path", [](auto& t) { t[4].path = "c/e"; }},
      {"file kind", [](auto& t) { t[4].kind = EntryKind::symlink; t[4].target = "x"; }},
      {"hard link target", [](auto& t) { t[2].target = "c/d"; }},
      {"symlink target", [](auto& t) { t[3].target = "../b"; }},
      {"directory mode", [](auto& t) { t[0].mode = 0700; }},
      {"directory mtime", [](auto& t) { t[0].mtime_ns += 1; }},
      {"an entry more", [](auto& t) { t.push_back(file("z")); }},
      {"an entry less", [](auto& t) { t.pop_back(); }},
  };
  for (const auto& [what, change] : changes) {
    std::vector<Entry> changed = tree;
    change(changed);
    EXPECT_NE(plan_digest(changed), base) << what;
  }
  // A path and a target that run into each other are still told apart (each field has its length).
  std::vector<Entry> one{link("ab", "c")}, other{link("a", "bc")};
  EXPECT_NE(plan_digest(one), plan_digest(other));
}

// Where plan_sync would do anything, the digests differ (the other direction: only equal digests skip a node).
TEST(PlanDigest, APlanWithWorkMeansDifferentDigests) {
  std::vector<Entry> tree{dir("c"), file("a", 5), hardlink("b", "a", 5), link("c/l", "../a"), file("c/d", 7)};
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<Entry> node = tree;
    Entry& e = node[random() % node.size()];
    switch (random() % 4) {
      case 0: e.mtime_ns += 1 + static_cast<int64_t>(random() % 3); break;
      case 1: e.mode ^= 1u << (random() % 9); break;
      case 2: e.hash ^= 1; break;
      case 3: e.target += "x"; break;
    }
    if (!plan_sync(manifest(tree), manifest(node), true).empty()) {
      EXPECT_NE(plan_digest(tree), plan_digest(node)) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace muster::sync
