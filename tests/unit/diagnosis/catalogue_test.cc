// The failure catalogue: the built-in file loads and every entry is reachable; a user's file is validated with
// file, line and key in every error; user entries come first and replace built-in ones of the same id.
#include "diagnosis/catalogue.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace muster::diagnosis {
namespace {

std::string parse_error(const std::string& text) {
  auto parsed = parse_catalogue(text, "mine.toml");
  return parsed ? std::string("(parsed)") : parsed.error().message;
}

TEST(Catalogue, TheBuiltInCatalogueLoads) {
  auto catalogue = load_catalogue({});
  ASSERT_TRUE(catalogue.has_value()) << catalogue.error().message;
  EXPECT_GE(catalogue->entries.size(), 25u);
  for (const auto& entry : catalogue->entries) {
    EXPECT_FALSE(entry.title.empty()) << entry.id;
    EXPECT_FALSE(entry.fix.empty()) << entry.id;
    EXPECT_NE(entry.origin.find("failures.toml (built in):"), std::string::npos) << entry.origin;
  }
}

TEST(Catalogue, AnEntry) {
  auto entries = parse_catalogue(R"(
[[failure]]
id = "my-oom"
title = "out of memory on {node}"
class = "primary"
match.output = ['MyAllocator: out of ([0-9]+) bytes']
match.signal = [6]
explain = "rank {rank} wanted {1} bytes"
fix = "ask for less"
doc = "https://example.com"
)",
                                 "mine.toml");
  ASSERT_TRUE(entries.has_value()) << entries.error().message;
  ASSERT_EQ(entries->size(), 1u);
  const auto& entry = entries->front();
  EXPECT_EQ(entry.id, "my-oom");
  EXPECT_EQ(entry.klass, FailureClass::primary);
  ASSERT_EQ(entry.output.size(), 1u);
  EXPECT_EQ(entry.signals, std::vector<int>{6});
  EXPECT_EQ(entry.origin, "mine.toml:2");
  EXPECT_FALSE(entry.needs_facts);
}

TEST(Catalogue, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(parse_error("[[failure]]\nid = \"x\"\ntitle = \"t\"\nexplain = \"e\"\nfix = \"f\"\nmatch.output = ['(']\n"),
            "mine.toml:6: failure entry key 'match.output': '(' is not a valid regular expression: "
            "Mismatched '(' and ')' in regular expression");
  EXPECT_EQ(parse_error("[[failure]]\nid = \"x\"\ntitle = \"t\"\nexplain = \"e\"\nfix = \"f\"\nmatch.sigal = [9]\n"),
            "mine.toml:6: failure entry key 'match.sigal': unknown key (did you mean 'signal'?)");
  EXPECT_EQ(parse_error("[[failure]]\nid = \"x\"\ntitle = \"t\"\nexplain = \"about {nod}\"\nfix = \"f\"\n"
                        "match.signal = 9\n"),
            "mine.toml:4: failure entry key 'explain': unknown placeholder {nod} (known: rank, node, ranks, nodes, "
            "line, how, signal, exit_code, error, missing_on, present_on, module, python, run_dir)");
  EXPECT_EQ(parse_error("[[failure]]\nid = \"x\"\ntitle = \"t\"\nexplain = \"e\"\nfix = \"f\"\nclass = \"major\"\n"
                        "match.signal = 9\n"),
            "mine.toml:6: failure entry key 'class': 'major' is not one of primary, secondary, timeout, fallback");
  EXPECT_EQ(parse_error("[[failure]]\nid = \"x\"\ntitle = \"t\"\nexplain = \"e\"\n\nmatch.signal = 9\n"),
            "mine.toml:1: failure entry key 'fix': missing");
  EXPECT_EQ(parse_error("[[failure]]\nid = \"X y\"\n"), "mine.toml:2: failure entry key 'id': use lowercase "
                                                        "letters, digits and '-'");
  EXPECT_EQ(parse_error("[[failure]]\nid = \"x\"\ntitle = \"t\"\nexplain = \"e\"\nfix = \"f\"\nmatch = {}\n"),
            "mine.toml:6: failure entry key 'match': matches nothing: give output, signal, exit_code, note, fact or "
            "lost");
  EXPECT_EQ(parse_error("[failures]\n"), "mine.toml:1: unknown top-level key 'failures' (entries are [[failure]] "
                                         "tables)");
  EXPECT_EQ(parse_error("[[failure]\n").substr(0, 13), "mine.toml:1:1");
}

TEST(Catalogue, FactsMakeTheHeadGatherThem) {
  auto entries = parse_catalogue(
      "[[failure]]\nid = \"x\"\ntitle = \"t\"\nexplain = \"e\"\nfix = \"{fix:network}\"\nmatch.signal = 9\n", "f");
  ASSERT_TRUE(entries.has_value()) << entries.error().message;
  EXPECT_TRUE(entries->front().needs_facts);
}

TEST(Catalogue, UserEntriesComeFirstAndReplaceBuiltInOnes) {
  auto dir = std::filesystem::temp_directory_path() / ("muster-catalogue-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mine.toml") << "[[failure]]\nid = \"segfault\"\ntitle = \"my crash\"\nexplain = \"e\"\n"
                                      "fix = \"f\"\nmatch.signal = 11\n"
                                      "[[failure]]\nid = \"my-own\"\ntitle = \"t\"\nexplain = \"e\"\nfix = \"f\"\n"
                                      "match.output = 'my error'\n";
  auto catalogue = load_catalogue({(dir / "missing.toml").string(), (dir / "mine.toml").string()});
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(catalogue.has_value()) << catalogue.error().message;
  EXPECT_EQ(catalogue->entries[0].title, "my crash");
  EXPECT_EQ(catalogue->entries[1].id, "my-own");
  int segfaults = 0;
  for (const auto& entry : catalogue->entries) segfaults += entry.id == "segfault";
  EXPECT_EQ(segfaults, 1);
}

TEST(Catalogue, GivenFilesMustExistAndComeBeforeTheDefaultOnes) {
  auto dir = std::filesystem::temp_directory_path() /
             ("muster-catalogues-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir / "muster");
  std::ofstream(dir / "given.toml") << "[[failure]]\nid = \"segfault\"\ntitle = \"given\"\nexplain = \"e\"\n"
                                       "fix = \"f\"\nmatch.signal = 11\n";
  std::ofstream(dir / "muster" / "failures.toml") << "[[failure]]\nid = \"segfault\"\ntitle = \"default\"\n"
                                                     "explain = \"e\"\nfix = \"f\"\nmatch.signal = 11\n";
  setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  unsetenv("MUSTER_FAILURES");
  auto with_given = load_catalogues({(dir / "given.toml").string()});
  auto defaults_only = load_catalogues({});
  auto missing = load_catalogues({(dir / "typo.toml").string()});
  unsetenv("XDG_CONFIG_HOME");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(with_given) << with_given.error().message;
  EXPECT_EQ(with_given->entries[0].title, "given");
  ASSERT_TRUE(defaults_only) << defaults_only.error().message;
  EXPECT_EQ(defaults_only->entries[0].title, "default");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::usage);
  EXPECT_NE(missing.error().message.find("--failures " + (dir / "typo.toml").string() + ": no such file"),
            std::string::npos)
      << missing.error().message;
}

TEST(Catalogue, DefaultUserFiles) {
  setenv("MUSTER_FAILURES", "/a.toml::/b.toml", 1);
  setenv("XDG_CONFIG_HOME", "/cfg", 1);
  EXPECT_EQ(default_user_catalogues(), (std::vector<std::string>{"/a.toml", "/b.toml", "/cfg/muster/failures.toml"}));
  unsetenv("MUSTER_FAILURES");
  unsetenv("XDG_CONFIG_HOME");
}

}  // namespace
}  // namespace muster::diagnosis
