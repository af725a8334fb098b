#include "gen/yaml_text.h"

#include <gtest/gtest.h>

namespace muster::gen {
namespace {

TEST(YamlScalar, NamesAddressesPathsAndFlagsStayPlain) {
  EXPECT_EQ(yaml_scalar("node1"), "node1");
  EXPECT_EQ(yaml_scalar("10.0.0.1"), "10.0.0.1");
  EXPECT_EQ(yaml_scalar("/data:/data:ro"), "/data:/data:ro");
  EXPECT_EQ(yaml_scalar("nvcr.io/nvidia/pytorch:24.05-py3"), "nvcr.io/nvidia/pytorch:24.05-py3");
  EXPECT_EQ(yaml_scalar("--nproc_per_node=8"), "--nproc_per_node=8");
  EXPECT_EQ(yaml_scalar("-m"), "-m");
  EXPECT_EQ(yaml_scalar("LOCAL_MACHINE"), "LOCAL_MACHINE");
  EXPECT_EQ(yaml_scalar("train.py"), "train.py");
}

TEST(YamlScalar, WordsThatAYamlReaderWouldTurnIntoBoolsOrNullAreQuoted) {
  for (const char* word : {"no", "yes", "No", "ON", "off", "true", "False", "y", "N", "null", "~"}) {
    EXPECT_EQ(yaml_scalar(word), std::string("'") + word + "'") << word;
  }
  EXPECT_EQ(yaml_scalar(""), "''");
  EXPECT_EQ(yaml_scalar("yesterday"), "yesterday");
}

TEST(YamlScalar, NumbersOfYaml11AndYaml12AreQuoted) {
  for (const char* word :
       {"3",   "-1",   "+7",   "0o17",   "017",  "0x1F",  "0b101", "1_000",      "1.5", ".5", "1.",
        "1e5", "1E-3", "1:20", "1:20.5", ".inf", "-.Inf", ".nan",  "2024-01-31", "<<",  "="}) {
    EXPECT_EQ(yaml_scalar(word), std::string("'") + word + "'") << word;
  }
  EXPECT_EQ(yaml_scalar("1e5x"), "1e5x");
  EXPECT_EQ(yaml_scalar("1.2.3"), "1.2.3");
}

TEST(YamlScalar, IndicatorsSpacesAndQuotesAreSingleQuoted) {
  EXPECT_EQ(yaml_scalar("a b"), "'a b'");
  EXPECT_EQ(yaml_scalar("it's"), "'it''s'");
  EXPECT_EQ(yaml_scalar("-"), "'-'");
  EXPECT_EQ(yaml_scalar("---x"), "'---x'");
  EXPECT_EQ(yaml_scalar("...x"), "'...x'");
  EXPECT_EQ(yaml_scalar("key:"), "'key:'");
  EXPECT_EQ(yaml_scalar("@home"), "'@home'");
  EXPECT_EQ(yaml_scalar("#x"), "'#x'");
  EXPECT_EQ(yaml_scalar("a,b"), "'a,b'");
  EXPECT_EQ(yaml_scalar("$(RANK)"), "'$(RANK)'");
  EXPECT_EQ(yaml_scalar("{a: 1}"), "'{a: 1}'");
}

TEST(YamlScalar, ControlCharactersAreDoubleQuotedWithEscapes) {
  EXPECT_EQ(yaml_scalar("a\nb"), "\"a\\nb\"");
  EXPECT_EQ(yaml_scalar("tab\there \"q\""), "\"tab\\there \\\"q\\\"\"");
}

TEST(YamlScalar, BeyondAsciiIsDoubleQuotedAndInvalidUtf8Replaced) {
  EXPECT_EQ(yaml_scalar("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  EXPECT_EQ(yaml_scalar("a\xff"
                        "b"),
            "\"a\xef\xbf\xbd"
            "b\"");
}

TEST(ToYaml, SortedJsonKeepsSafeDumpOrderAndIndentsNestedMaps) {
  nlohmann::json document = {{"zeta", 1},
                             {"alpha", "no"},
                             {"nested", {{"b", true}, {"a", nullptr}}},
                             {"empty", nlohmann::json::array()},
                             {"none", nlohmann::json::object()}};
  EXPECT_EQ(to_yaml(document),
            "alpha: 'no'\n"
            "empty: []\n"
            "nested:\n"
            "  a: null\n"
            "  b: true\n"
            "none: {}\n"
            "zeta: 1\n");
}

TEST(ToYaml, ListsOfMapsAndListsOfListsStartWithADash) {
  nlohmann::ordered_json document = {
      {"services",
       {{"train", {{"command", {"torchrun", "3"}}, {"devices", {{{"driver", "nvidia"}, {"count", 2}}}}}}}},
      {"matrix", {{1, 2}, {3}}}};
  EXPECT_EQ(to_yaml(document),
            "services:\n"
            "  train:\n"
            "    command:\n"
            "      - torchrun\n"
            "      - '3'\n"
            "    devices:\n"
            "      - driver: nvidia\n"
            "        count: 2\n"
            "matrix:\n"
            "  - - 1\n"
            "    - 2\n"
            "  - - 3\n");
}

}  // namespace
}  // namespace muster::gen
