#include "config/node_groups.h"

#include <gtest/gtest.h>

#include "config/check.h"
#include "config/toml_reader.h"

namespace muster::config {
namespace {

ConfigFile parse(std::string_view text, const std::string& path = "muster.toml", const std::string& role = "project") {
  auto file = parse_config_text(text, path, role);
  EXPECT_TRUE(file.has_value()) << file.error().message;
  return file ? *file : ConfigFile{};
}

std::vector<cli_spec::CommandSpec> commands() {
  cli_spec::CommandSpec launch;
  launch.path = {"launch"};
  launch.configurable = true;
  cli_spec::OptionSpec hosts;
  hosts.long_names = {"hosts"};
  launch.options = {hosts};
  return {launch};
}

TEST(ConfigNodeGroups, AStringOrAListOfStrings) {
  auto file = parse("hosts = \"@gpu\"\n[groups]\ngpu = \"node[1-8]\"\nbig = [\"node[9-12]\", \"fat1\"]\n");
  EXPECT_TRUE(check_config_file(file, commands()).has_value());  // [groups] is not a command's table
  auto groups = node_groups(ConfigSet{{file}, "", "", {}});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups["gpu"].hostlist, "node[1-8]");
  EXPECT_EQ(groups["big"].hostlist, "node[9-12],fat1");
  EXPECT_EQ(groups["big"].source, "muster.toml:4");
}

TEST(ConfigNodeGroups, TheProjectWinsOverTheUser) {
  auto project = parse("[groups]\ngpu = \"node[1-2]\"\n");
  auto user = parse("[groups]\ngpu = \"other[1-9]\"\ncpu = \"c1\"\n", "config.toml", "user");
  auto groups = node_groups(ConfigSet{{project, user}, "", "", {}});
  EXPECT_EQ(groups["gpu"].hostlist, "node[1-2]");
  EXPECT_EQ(groups["cpu"].hostlist, "c1");
}

TEST(ConfigNodeGroups, BadNamesValuesAndTablesNameTheLine) {
  auto number = check_config_file(parse("[groups]\ngpu = 8\n"), commands());
  ASSERT_FALSE(number.has_value());
  EXPECT_NE(number.error().message.find("muster.toml:2: [groups] gpu: the value is a hostlist string"),
            std::string::npos) << number.error().message;
  auto name = check_config_file(parse("[groups]\n\"a b\" = \"n1\"\n"), commands());
  ASSERT_FALSE(name.has_value());
  EXPECT_NE(name.error().message.find("a group's name is"), std::string::npos) << name.error().message;
  auto table = check_config_file(parse("[groups.gpu]\nx = \"n1\"\n"), commands());
  ASSERT_FALSE(table.has_value());
  EXPECT_NE(table.error().message.find("[groups] holds"), std::string::npos) << table.error().message;
}

}  // namespace
}  // namespace muster::config
