#include "cli_spec/command_spec.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

namespace muster::cli_spec {
namespace {

TEST(CommandSpec, OptionsWithKindsChoicesListsAndGroups) {
  CLI::App app("Do things.\n  muster x --a 1", "muster x");
  std::string file, text;
  int number = 0;
  double real = 0;
  bool flag = false;
  std::vector<std::string> list;
  app.add_option("-H,--hostfile", file, "a file")->type_name("FILE")->group("Hosts");
  app.add_option("--mode", text, "mode")->check(CLI::IsMember({"a", "b"}));
  app.add_option("--count", number)->check(CLI::Range(1, 9));
  app.add_option("--grace", real);
  app.add_option("--env", list);
  app.add_flag("-q,--quiet", flag, "hush");
  app.add_option("DIR", text, "where")->required()->type_name("DIR");
  app.prefix_command();
  CommandSpec spec = describe_app(app, {"x"});
  EXPECT_EQ(spec.summary, "Do things");
  EXPECT_TRUE(spec.takes_command);
  ASSERT_EQ(spec.options.size(), 6u);  // --help left out
  const OptionSpec* hostfile = spec.find_option("hostfile");
  ASSERT_TRUE(hostfile);
  EXPECT_EQ(hostfile, spec.find_option("H"));
  EXPECT_EQ(hostfile->kind, ValueKind::file);
  EXPECT_EQ(hostfile->group, "Hosts");
  EXPECT_EQ(hostfile->spellings(), (std::vector<std::string>{"-H", "--hostfile"}));
  EXPECT_EQ(spec.find_option("mode")->choices, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(spec.find_option("count")->kind, ValueKind::integer);
  EXPECT_TRUE(spec.find_option("count")->choices.empty());
  EXPECT_EQ(spec.find_option("grace")->kind, ValueKind::number);
  EXPECT_TRUE(spec.find_option("env")->repeatable);
  EXPECT_FALSE(spec.find_option("mode")->repeatable);
  EXPECT_EQ(spec.find_option("quiet")->kind, ValueKind::flag);
  EXPECT_EQ(spec.find_option("quiet")->key(), "quiet");
  ASSERT_EQ(spec.positionals.size(), 1u);
  EXPECT_EQ(spec.positionals[0].name, "DIR");
  EXPECT_EQ(spec.positionals[0].kind, ValueKind::directory);
  EXPECT_TRUE(spec.positionals[0].required);
}

TEST(CommandSpec, SubcommandsWithTheirPaths) {
  CLI::App app("Set up.", "muster setup");
  bool dry = false;
  app.add_subcommand("ssh", "keys")->add_flag("--dry-run", dry);
  app.add_subcommand("hosts", "/etc/hosts");
  std::vector<CommandSpec> tree{describe_app(app, {"setup"})};
  ASSERT_EQ(tree[0].subcommands.size(), 2u);
  EXPECT_EQ(tree[0].subcommands[0].path, (std::vector<std::string>{"setup", "ssh"}));
  EXPECT_EQ(tree[0].subcommands[0].name(), "setup ssh");
  EXPECT_EQ(tree[0].subcommands[0].summary, "keys");
  EXPECT_EQ(find_command(tree, {"setup", "ssh"}), &tree[0].subcommands[0]);
  EXPECT_EQ(find_command(tree, {"setup", "nope"}), nullptr);
  EXPECT_EQ(flatten(tree).size(), 3u);
}

}  // namespace
}  // namespace muster::cli_spec
