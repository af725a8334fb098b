#include "util/shell_quote.h"

#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(ShellQuote, SafeWordsStayUnchanged) {
  EXPECT_EQ(shell_quote("node1"), "node1");
  EXPECT_EQ(shell_quote("/home/u/.cache/muster/ab12/muster"), "/home/u/.cache/muster/ab12/muster");
  EXPECT_EQ(shell_quote("--nonce=abc"), "--nonce=abc");
}

TEST(ShellQuote, EmptyAndSpecialWordsAreQuoted) {
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_join({"echo", "a;b", "*"}), "echo 'a;b' '*'");
}

// The real test of quoting: /bin/sh must hand every word back byte for byte.
TEST(ShellQuote, RoundTripsThroughSh) {
  const std::array<std::string, 6> words = {"plain", "two words", "$HOME `id` $(id)", "quote ' \" \\",
                                            "line\nbreak", "ünïcødé *?[]{};&|<>"};
  std::string script = "printf '%s\\0'";
  for (const auto& word : words) script += " " + shell_quote(word);
  FILE* pipe = popen(("sh -c " + shell_quote(script)).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[256];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  ASSERT_EQ(pclose(pipe), 0);
  std::string expected;
  for (const auto& word : words) expected += word + '\0';
  EXPECT_EQ(output, expected);
}

}  // namespace
}  // namespace muster
