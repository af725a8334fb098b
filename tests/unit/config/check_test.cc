#include "config/check.h"

#include <gtest/gtest.h>

#include "config/toml_reader.h"

namespace muster::config {
namespace {

using cli_spec::CommandSpec;
using cli_spec::OptionSpec;
using cli_spec::ValueKind;

OptionSpec option(std::string name, ValueKind kind = ValueKind::text, bool repeatable = false) {
  OptionSpec spec;
  spec.long_names = {std::move(name)};
  spec.kind = kind;
  spec.repeatable = repeatable;
  spec.help = "help";
  return spec;
}

CommandSpec command(std::vector<std::string> path, std::vector<OptionSpec> options, bool configurable = true) {
  CommandSpec spec;
  spec.path = std::move(path);
  spec.options = std::move(options);
  spec.configurable = configurable;
  return spec;
}

std::vector<CommandSpec> commands() {
  CommandSpec gen = command({"gen"}, {});
  gen.subcommands = {command({"gen", "sbatch"}, {option("hosts"), option("time")}),
                     command({"gen", "hostfile"}, {option("hosts")})};
  return {command({"launch"}, {option("hosts"), option("nproc-per-node", ValueKind::integer),
                               option("exclude"), option("env", ValueKind::text, true)}),
          command({"sync"}, {option("hosts"), option("exclude", ValueKind::text, true)}), gen,
          command({"init"}, {option("output")}, false)};
}

Result<void> check(std::string_view text) {
  auto file = parse_config_text(text, "/p/muster.toml", "project");
  EXPECT_TRUE(file) << file.error().message;
  return check_config_file(*file, commands());
}

TEST(ConfigCheck, KnownKeysAtTheTopLevelAndInCommandTables) {
  auto ok = check("hosts = \"a\"\nnproc-per-node = 2\n[launch]\nenv = [\"A=1\"]\n[gen]\nhosts = \"b\"\n"
                  "[gen.sbatch]\ntime = \"1:00:00\"\n[sync]\nexclude = [\"*.pt\"]\n");
  EXPECT_TRUE(ok) << ok.error().message;
}

TEST(ConfigCheck, UnknownKeyNamesFileLineKeyAndGuess) {
  auto bad = check("hosts = \"a\"\n[launch]\nnproc-per-nod = 2\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "/p/muster.toml:3: unknown key '[launch] nproc-per-nod' (muster launch has no --nproc-per-nod), did you "
            "mean 'nproc-per-node'?");
}

TEST(ConfigCheck, KeyOfAnotherCommandIsUnknownInThisTable) {
  auto bad = check("[sync]\nnproc-per-node = 2\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("/p/muster.toml:2: unknown key '[sync] nproc-per-node'"), std::string::npos)
      << bad.error().message;
}

TEST(ConfigCheck, UnknownTableWithGuessAndCommandsThatReadNoConfig) {
  auto bad = check("[lanch]\nhosts = \"a\"\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "/p/muster.toml:1: [lanch] is not a muster command that takes settings, did you mean [launch]?");
  EXPECT_FALSE(check("[init]\noutput = \"x\"\n"));
  EXPECT_FALSE(check("output = \"x\"\n"));  // only init has --output, and it reads no config
  EXPECT_FALSE(check("[gen.sbatc]\n"));
}

TEST(ConfigCheck, TopLevelKeyThatMeansDifferentThingsMustMoveToATable) {
  auto bad = check("exclude = \"x\"\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("/p/muster.toml:1: key 'exclude' means different things"), std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("put it under [launch] or [sync]"), std::string::npos) << bad.error().message;
  EXPECT_TRUE(check("[launch]\nexclude = \"x\"\n"));
  EXPECT_TRUE(same_meaning_everywhere(commands(), "hosts"));
  EXPECT_FALSE(same_meaning_everywhere(commands(), "exclude"));
}

TEST(ConfigCheck, EveryErrorInLineOrder) {
  auto bad = check("[sync]\nbad-two = 1\n[launch]\nbad-one = 1\n");  // toml++ sorts tables by name
  ASSERT_FALSE(bad);
  EXPECT_LT(bad.error().message.find(":2:"), bad.error().message.find(":4:")) << bad.error().message;
}

TEST(ConfigCheck, AnOptionMarkedNotConfigurableHasNoKey) {
  auto specs = commands();
  specs[0].options.push_back(option("job-id"));
  specs[0].options.back().configurable = false;
  auto file = parse_config_text("[launch]\njob-id = \"x\"\n", "/p/muster.toml", "project");
  ASSERT_TRUE(file);
  auto bad = check_config_file(*file, specs);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "/p/muster.toml:2: '[launch] job-id': --job-id names one run; give it on the command line, not in a file");
}

TEST(ConfigCheck, SectionReachesItsSubcommands) {
  auto scope = commands_in_section(commands(), {"gen"});
  ASSERT_EQ(scope.size(), 3u);  // gen, gen sbatch, gen hostfile
  EXPECT_EQ(commands_in_section(commands(), {}).size(), 5u);  // init reads no config
}

}  // namespace
}  // namespace muster::config
