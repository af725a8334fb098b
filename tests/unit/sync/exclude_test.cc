// ExcludeRules: gitignore semantics on paths relative to the sync root, and the lossless text form that
// travels to the agents.
#include "sync/exclude.h"

#include <gtest/gtest.h>

namespace muster::sync {
namespace {

struct ExcludeCase {
  const char* pattern;
  const char* path;
  bool is_dir;
  bool excluded;
};

class ExcludeTable : public ::testing::TestWithParam<ExcludeCase> {};

TEST_P(ExcludeTable, OneRule) {
  const auto& c = GetParam();
  ExcludeRules rules;
  ASSERT_TRUE(rules.add(c.pattern));
  EXPECT_EQ(rules.excluded(c.path, c.is_dir), c.excluded)
      << "pattern '" << c.pattern << "' path '" << c.path << "' dir " << c.is_dir;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ExcludeTable,
    ::testing::Values(
        // no slash: the name at any depth
        ExcludeCase{"*.pyc", "x.pyc", false, true}, ExcludeCase{"*.pyc", "a/b/x.pyc", false, true},
        ExcludeCase{"*.pyc", "x.py", false, false}, ExcludeCase{"*.pyc", "dir.pyc", true, true},
        ExcludeCase{"cache", "a/cache", true, true}, ExcludeCase{"cache", "cache", false, true},
        // trailing '/': directories only
        ExcludeCase{"build/", "build", true, true}, ExcludeCase{"build/", "build", false, false},
        ExcludeCase{"build/", "src/build", true, true}, ExcludeCase{"build/", "builds", true, false},
        // leading '/': anchored to the root
        ExcludeCase{"/data", "data", true, true}, ExcludeCase{"/data", "data", false, true},
        ExcludeCase{"/data", "sub/data", true, false},
        // middle '/': anchored too
        ExcludeCase{"docs/*.md", "docs/a.md", false, true}, ExcludeCase{"docs/*.md", "docs/x/a.md", false, false},
        ExcludeCase{"docs/*.md", "sub/docs/a.md", false, false},
        // '**'
        ExcludeCase{"**/cache", "cache", true, true}, ExcludeCase{"**/cache", "a/b/cache", true, true},
        ExcludeCase{"**/cache", "a/cachex", true, false}, ExcludeCase{"a/**/b", "a/b", false, true},
        ExcludeCase{"a/**/b", "a/x/y/b", false, true}, ExcludeCase{"a/**/b", "x/a/b", false, false},
        ExcludeCase{"logs/**", "logs/x", false, true}, ExcludeCase{"logs/**", "logs/x/y", true, true},
        ExcludeCase{"logs/**", "logs", true, false},
        // '?', classes
        ExcludeCase{"?.txt", "a.txt", false, true}, ExcludeCase{"?.txt", "ab.txt", false, false},
        ExcludeCase{"[abc].txt", "b.txt", false, true}, ExcludeCase{"[abc].txt", "d.txt", false, false},
        ExcludeCase{"file[0-9]", "x/file7", false, true},
        // escapes, comments, spaces
        ExcludeCase{"\\#x", "#x", false, true}, ExcludeCase{"#x", "#x", false, false},
        ExcludeCase{"\\!x", "!x", false, true}, ExcludeCase{"trail  ", "trail", false, true},
        ExcludeCase{"trail  ", "trail  ", false, false}, ExcludeCase{"sp\\ ", "sp ", false, true},
        ExcludeCase{"sp\\ ", "sp", false, false}, ExcludeCase{"  lead", "  lead", false, true},
        ExcludeCase{"", "x", false, false}, ExcludeCase{"   ", "x", false, false},
        ExcludeCase{"/", "x", true, false}, ExcludeCase{"crlf\r", "crlf", false, true},
        // nothing is excluded by default
        ExcludeCase{"nomatch", ".git", true, false}));

TEST(ExcludeRules, EmptyExcludesNothing) {
  ExcludeRules rules;
  EXPECT_TRUE(rules.empty());
  EXPECT_FALSE(rules.excluded(".git", true));
  EXPECT_FALSE(rules.excluded("a/b/c.pyc", false));
}

TEST(ExcludeRules, LaterNegationReincludes) {
  ExcludeRules rules;
  ASSERT_TRUE(rules.add("*.log"));
  ASSERT_TRUE(rules.add("!keep.log"));
  EXPECT_TRUE(rules.excluded("x.log", false));
  EXPECT_FALSE(rules.excluded("keep.log", false));
  EXPECT_FALSE(rules.excluded("sub/keep.log", false));
  ASSERT_TRUE(rules.add("sub/keep.log"));  // the last matching rule wins
  EXPECT_TRUE(rules.excluded("sub/keep.log", false));
  EXPECT_FALSE(rules.excluded("keep.log", false));
}

TEST(ExcludeRules, NegationBeforeExclusionHasNoEffect) {
  ExcludeRules rules;
  ASSERT_TRUE(rules.add("!keep.log"));
  ASSERT_TRUE(rules.add("*.log"));
  EXPECT_TRUE(rules.excluded("keep.log", false));
}

TEST(ExcludeRules, NegatedDirectoryOnlyRule) {
  ExcludeRules rules;
  ASSERT_TRUE(rules.add("out*"));
  ASSERT_TRUE(rules.add("!outputs/"));
  EXPECT_FALSE(rules.excluded("outputs", true));
  EXPECT_TRUE(rules.excluded("outputs", false));
  EXPECT_TRUE(rules.excluded("out.txt", false));
}

TEST(ExcludeRules, BaseDirectoryAnchorsItsRules) {
  ExcludeRules rules;
  ASSERT_TRUE(rules.add("/x", "sub", "sub/.musterignore"));
  EXPECT_TRUE(rules.excluded("sub/x", false));
  EXPECT_FALSE(rules.excluded("x", false));
  EXPECT_FALSE(rules.excluded("sub/y/x", false));
  EXPECT_FALSE(rules.excluded("other/x", false));
  EXPECT_FALSE(rules.excluded("subx", false));
  EXPECT_FALSE(rules.excluded("sub", true));  // a rule applies below its directory, not to it

  ExcludeRules names;
  ASSERT_TRUE(names.add("*.tmp", "a/b", "a/b/.musterignore"));
  EXPECT_TRUE(names.excluded("a/b/x.tmp", false));
  EXPECT_TRUE(names.excluded("a/b/c/d/x.tmp", false));
  EXPECT_FALSE(names.excluded("a/x.tmp", false));
  EXPECT_FALSE(names.excluded("a/bc/x.tmp", false));

  ExcludeRules middle;
  ASSERT_TRUE(middle.add("docs/*.md", "sub/", "sub/.musterignore"));  // a trailing '/' on base is tolerated
  EXPECT_TRUE(middle.excluded("sub/docs/a.md", false));
  EXPECT_FALSE(middle.excluded("docs/a.md", false));
}

TEST(ExcludeRules, MalformedPatternNamesItsSource) {
  ExcludeRules rules;
  auto added = rules.add("[abc", "", "--exclude");
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().kind, ErrorKind::usage);
  EXPECT_NE(added.error().message.find("--exclude"), std::string::npos);
  EXPECT_NE(added.error().message.find("[abc"), std::string::npos);
  EXPECT_TRUE(rules.empty());
  EXPECT_FALSE(rules.add("x\\"));
}

TEST(ExcludeRules, FileTextSkipsCommentsAndNamesLines) {
  ExcludeRules rules;
  ASSERT_TRUE(rules.add_file_text("# comment\n\n*.o\r\n  \n!keep.o\nbuild/", "", ".musterignore"));
  EXPECT_EQ(rules.serialize().size(), 3u);
  EXPECT_TRUE(rules.excluded("a.o", false));
  EXPECT_FALSE(rules.excluded("keep.o", false));
  EXPECT_TRUE(rules.excluded("build", true));

  ExcludeRules bad;
  auto added = bad.add_file_text("ok\n# fine\nbad[\n", "sub", "/src/sub/.musterignore");
  ASSERT_FALSE(added);
  EXPECT_NE(added.error().message.find("/src/sub/.musterignore:3"), std::string::npos) << added.error().message;
}

TEST(ExcludeRules, SerializeRoundTripsExactly) {
  ExcludeRules rules;
  ASSERT_TRUE(rules.add("*.pyc"));
  ASSERT_TRUE(rules.add("build/"));
  ASSERT_TRUE(rules.add("/data"));
  ASSERT_TRUE(rules.add("!keep.log"));
  ASSERT_TRUE(rules.add("a/**/b"));
  ASSERT_TRUE(rules.add("\\#x"));
  ASSERT_TRUE(rules.add("sp\\ "));
  ASSERT_TRUE(rules.add("/x", "sub dir/with 12 digits", "f"));
  ASSERT_TRUE(rules.add("!/odd name/", "tab\tand\nnewline", "f"));
  auto lines = rules.serialize();
  ASSERT_EQ(lines.size(), 9u);
  auto back = ExcludeRules::deserialize(lines);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->serialize(), lines);
  for (const char* path : {"x.pyc", "build", "data", "keep.log", "a/q/b", "#x", "sp ", "sub dir/with 12 digits/x",
                           "tab\tand\nnewline/odd name", "other"}) {
    for (bool is_dir : {false, true}) {
      EXPECT_EQ(back->excluded(path, is_dir), rules.excluded(path, is_dir)) << path;
    }
  }
  EXPECT_TRUE(back->excluded("sub dir/with 12 digits/x", false));
  EXPECT_TRUE(ExcludeRules::deserialize({})->empty());
}

TEST(ExcludeRules, DeserializeRejectsGarbage) {
  for (const char* line : {"", "xyz 0 a", "--- 5 ab", "--- x a", "---  0 a", "--- 0 ", "nda", "--- 0 [abc",
                           "--- 99999999999999999999999 a", "---x0 a", "--- 01 ab"}) {
    EXPECT_FALSE(ExcludeRules::deserialize({line})) << "'" << line << "'";
  }
  EXPECT_TRUE(ExcludeRules::deserialize({"--- 0 a", "nda 3 subb"}));
}

}  // namespace
}  // namespace muster::sync

namespace muster::sync {
namespace {

// As git ranks command-line patterns above .gitignore files: a .musterignore cannot re-include what
// --exclude left out, while its own rules still order among themselves.
TEST(ExcludeRulesPriority, CommandLineRulesWinOverInTreeFiles) {
  ExcludeRules rules;
  ASSERT_TRUE(rules.add("*.log").has_value());
  ASSERT_TRUE(rules.add_file_text("!keep.log\n*.tmp\n!x.tmp\n", "", ".musterignore", true).has_value());
  EXPECT_TRUE(rules.excluded("keep.log", false));  // --exclude wins over the file's negation
  EXPECT_TRUE(rules.excluded("a.tmp", false));
  EXPECT_FALSE(rules.excluded("x.tmp", false));    // later rule of the same file still wins
  ASSERT_TRUE(rules.add("!x.tmp").has_value());
  ASSERT_TRUE(rules.add_file_text("x.tmp\n", "sub", "sub/.musterignore", true).has_value());
  EXPECT_FALSE(rules.excluded("sub/x.tmp", false));  // the command line's negation outranks the deeper file
}

}  // namespace
}  // namespace muster::sync
