// The gitignore glob matcher behind ExcludeRules: '*' and '?' stay inside one component, '**' as a whole
// component crosses directories, classes and escapes.
#include "sync/glob.h"

#include <gtest/gtest.h>

namespace muster::sync {
namespace {

struct GlobCase {
  const char* pattern;
  const char* path;
  bool matches;
};

class GlobTable : public ::testing::TestWithParam<GlobCase> {};

TEST_P(GlobTable, Matches) {
  const auto& c = GetParam();
  EXPECT_EQ(glob_match(c.pattern, c.path), c.matches) << "pattern '" << c.pattern << "' path '" << c.path << "'";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GlobTable,
    ::testing::Values(
        GlobCase{"abc", "abc", true}, GlobCase{"abc", "abcd", false}, GlobCase{"abc", "ab", false},
        GlobCase{"", "", true}, GlobCase{"", "a", false},
        // '*'
        GlobCase{"*", "anything", true}, GlobCase{"*", "", true}, GlobCase{"*", "a/b", false},
        GlobCase{"*.pyc", "x.pyc", true}, GlobCase{"*.pyc", ".pyc", true}, GlobCase{"*.pyc", "x.py", false},
        GlobCase{"a*b*c", "aXXbYYc", true}, GlobCase{"a*b*c", "abc", true}, GlobCase{"a*b*c", "acb", false},
        GlobCase{"a*", "a/b", false}, GlobCase{"docs/*.md", "docs/x.md", true},
        GlobCase{"docs/*.md", "docs/sub/x.md", false}, GlobCase{"a/*/c", "a/b/c", true},
        GlobCase{"a/*/c", "a//c", true}, GlobCase{"a/*/c", "a/b/x/c", false},
        // '?'
        GlobCase{"?", "a", true}, GlobCase{"?", "", false}, GlobCase{"?", "/", false}, GlobCase{"a?c", "abc", true},
        GlobCase{"a?c", "a/c", false},
        // classes
        GlobCase{"[abc]", "b", true}, GlobCase{"[abc]", "d", false}, GlobCase{"[a-c]x", "cx", true},
        GlobCase{"[!a-c]x", "cx", false}, GlobCase{"[!a-c]x", "dx", true}, GlobCase{"[^a]", "b", true},
        GlobCase{"[]]", "]", true}, GlobCase{"[!]]", "]", false}, GlobCase{"[a-]", "-", true},
        GlobCase{"[\\]]", "]", true}, GlobCase{"[[:digit:]]x", "7x", true}, GlobCase{"[[:digit:]]x", "ax", false},
        GlobCase{"[[:upper:][:digit:]]", "Q", true}, GlobCase{"a[/]b", "a/b", false},
        GlobCase{"[!a]", "/", false},
        // escapes
        GlobCase{"\\*", "*", true}, GlobCase{"\\*", "x", false}, GlobCase{"\\#x", "#x", true},
        GlobCase{"\\!x", "!x", true}, GlobCase{"a\\ ", "a ", true}, GlobCase{"\\[x]", "[x]", true},
        // '**'
        GlobCase{"**", "a/b/c", true}, GlobCase{"**/cache", "cache", true}, GlobCase{"**/cache", "a/b/cache", true},
        GlobCase{"**/cache", "a/cache/x", false}, GlobCase{"**/cache", "xcache", false},
        GlobCase{"a/**/b", "a/b", true}, GlobCase{"a/**/b", "a/x/b", true}, GlobCase{"a/**/b", "a/x/y/b", true},
        GlobCase{"a/**/b", "a/xb", false}, GlobCase{"a/**/b", "ab", false}, GlobCase{"a/**/b", "a/b/c", false},
        GlobCase{"logs/**", "logs/a", true}, GlobCase{"logs/**", "logs/a/b", true},
        GlobCase{"logs/**", "logs", false}, GlobCase{"logs/**", "logsx/a", false},
        GlobCase{"**/a/**", "x/a/y", true}, GlobCase{"**/*.log", "x/y/z.log", true},
        GlobCase{"a**b", "aXb", true}, GlobCase{"a**b", "a/b", false}));  // '**' inside a component is '*'

TEST(GlobSyntax, ReportsUnterminatedClassAndTrailingBackslash) {
  EXPECT_FALSE(glob_syntax_error("*.pyc"));
  EXPECT_FALSE(glob_syntax_error("[abc]"));
  EXPECT_FALSE(glob_syntax_error("\\["));
  EXPECT_FALSE(glob_syntax_error("[[:alpha:]]"));
  EXPECT_TRUE(glob_syntax_error("[abc"));
  EXPECT_TRUE(glob_syntax_error("x["));
  EXPECT_TRUE(glob_syntax_error("[]"));
  EXPECT_TRUE(glob_syntax_error("[[:nosuch:]]"));
  EXPECT_TRUE(glob_syntax_error("abc\\"));
}

TEST(GlobMatch, ManyStarsStayFast) {
  // Backtracking must not explode on a pathological pattern (each '*' is bounded by the component).
  std::string path(40, 'a');
  EXPECT_FALSE(glob_match("*a*a*a*a*a*a*a*b", path));
  EXPECT_FALSE(glob_match("**/**/**/**/**/b", "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/c"));
}

// Found by fuzzing: every '**/' tried every later directory again, so 20 of them against a deep path took
// forever (a timeout here means the backtracking is exponential again).
TEST(Glob, ManyDoubleStarsStayPolynomial) {
  std::string pattern;
  for (int i = 0; i < 20; ++i) pattern += "**/*/";
  std::string deep;
  for (int i = 0; i < 60; ++i) deep += "a/";
  EXPECT_FALSE(glob_match(pattern + "x", deep + "y"));
  EXPECT_TRUE(glob_match(pattern + "y", deep + "y"));
  EXPECT_FALSE(glob_match(pattern + "y", "a/y"));  // each '*/' still needs a directory of its own
}

}  // namespace
}  // namespace muster::sync
