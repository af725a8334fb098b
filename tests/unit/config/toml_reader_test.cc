#include "config/toml_reader.h"

#include <gtest/gtest.h>

namespace muster::config {
namespace {

ConfigFile parse_ok(std::string_view text) {
  auto file = parse_config_text(text, "/p/muster.toml", "project");
  EXPECT_TRUE(file) << file.error().message;
  return file ? *file : ConfigFile{};
}

const Setting* find(const ConfigFile& file, const std::string& key, std::vector<std::string> section = {}) {
  for (const auto& setting : file.settings) {
    if (setting.key == key && setting.section == section) return &setting;
  }
  return nullptr;
}

TEST(TomlReader, ValuesAsTheCommandLineSpellsThemWithTheirLines) {
  auto file = parse_ok(
      "# comment\n"
      "hosts = \"node[1-4]\"\n"
      "nproc-per-node = 8\n"
      "\n"
      "[launch]\n"
      "grace = 2.5\n"
      "quiet = true\n"
      "env = [\"A=1\", \"B=2\"]\n"
      "[gen.sbatch]\n"
      "time = \"1:00:00\"\n");
  const Setting* hosts = find(file, "hosts");
  ASSERT_TRUE(hosts);
  EXPECT_EQ(hosts->values, std::vector<std::string>{"node[1-4]"});
  EXPECT_EQ(hosts->source.line, 2);
  EXPECT_EQ(hosts->source.text(), "/p/muster.toml:2");
  EXPECT_EQ(find(file, "nproc-per-node")->values, std::vector<std::string>{"8"});
  EXPECT_EQ(find(file, "nproc-per-node")->type, ValueType::integer);
  EXPECT_EQ(find(file, "grace", {"launch"})->values, std::vector<std::string>{"2.5"});
  EXPECT_EQ(find(file, "quiet", {"launch"})->type, ValueType::boolean);
  const Setting* env = find(file, "env", {"launch"});
  ASSERT_TRUE(env);
  EXPECT_TRUE(env->is_list);
  EXPECT_EQ(env->values, (std::vector<std::string>{"A=1", "B=2"}));
  EXPECT_EQ(env->source.line, 8);
  EXPECT_EQ(env->display(), "[launch] env");
  const Setting* time = find(file, "time", {"gen", "sbatch"});
  ASSERT_TRUE(time);
  EXPECT_EQ(time->section_name(), "gen.sbatch");
  EXPECT_EQ(time->source.line, 10);
  ASSERT_EQ(file.tables.size(), 3u);  // launch, gen, gen.sbatch
}

TEST(TomlReader, MalformedTomlNamesFileLineAndColumn) {
  auto file = parse_config_text("hosts = \"a\"\nnproc-per-node = \n", "/p/muster.toml", "project");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().kind, ErrorKind::usage);
  EXPECT_NE(file.error().message.find("/p/muster.toml:2:"), std::string::npos) << file.error().message;
}

TEST(TomlReader, ASyntaxErrorOnAKeysLineNamesTheKeyAndItsTable) {
  auto top = parse_config_text("hosts = \"a\"\nnproc-per-node = \n", "/p/muster.toml", "project");
  ASSERT_FALSE(top);
  EXPECT_EQ(top.error().message.rfind("/p/muster.toml:2:", 0), 0u) << top.error().message;
  EXPECT_NE(top.error().message.find(": nproc-per-node: "), std::string::npos) << top.error().message;
  auto table = parse_config_text("# comment\n[launch]\nhosts = \"a\"\n\n[gen.sbatch]\n  time = \"1:00\n",
                                 "m.toml", "project");
  ASSERT_FALSE(table);
  EXPECT_NE(table.error().message.find("m.toml:6:"), std::string::npos) << table.error().message;
  EXPECT_NE(table.error().message.find(": [gen.sbatch] time: "), std::string::npos) << table.error().message;
  // A line that assigns nothing names no key (an unclosed table header).
  auto header = parse_config_text("x = 1\n[launch\n", "m.toml", "project");
  ASSERT_FALSE(header);
  EXPECT_NE(header.error().message.find("m.toml:2:"), std::string::npos) << header.error().message;
  EXPECT_EQ(header.error().message.find("x: "), std::string::npos) << header.error().message;
  EXPECT_EQ(header.error().message.find("[launch: "), std::string::npos) << header.error().message;
}

TEST(TomlReader, DuplicateKeyIsAnError) {
  auto file = parse_config_text("hosts = \"a\"\nhosts = \"b\"\n", "m.toml", "project");
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("m.toml:2:"), std::string::npos) << file.error().message;
  EXPECT_NE(file.error().message.find(": hosts: "), std::string::npos) << file.error().message;
}

TEST(TomlReader, DatesAndNestedListsAreNotSettings) {
  auto date = parse_config_text("x = 1\nwhen = 1979-05-27\n", "m.toml", "project");
  ASSERT_FALSE(date);
  EXPECT_NE(date.error().message.find("m.toml:2: when:"), std::string::npos) << date.error().message;
  auto nested = parse_config_text("[launch]\nenv = [[\"a\"]]\n", "m.toml", "project");
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message.find("m.toml:2: [launch] env:"), std::string::npos) << nested.error().message;
  auto tables = parse_config_text("[[launch]]\nx = 1\n", "m.toml", "project");
  ASSERT_FALSE(tables);
}

TEST(TomlReader, QuotesForToml) {
  EXPECT_EQ(toml_quote("plain"), "\"plain\"");
  EXPECT_EQ(toml_quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
  auto back = parse_ok("k = " + toml_quote("a\"b\\c\nd\x01") + "\n");
  EXPECT_EQ(back.settings.at(0).values.at(0), "a\"b\\c\nd\x01");
}

}  // namespace
}  // namespace muster::config
