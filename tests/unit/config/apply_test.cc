#include "config/apply.h"

#include <gtest/gtest.h>

#include "config/explain.h"
#include "config/toml_reader.h"

namespace muster::config {
namespace {

// An app like muster's: `muster launch` with host, env and path options.
struct Launch {
  std::string hosts, hostfile, run_dir, transport = "auto";
  int nproc = 0;
  double grace = 5;
  bool quiet = false, per_node = false;
  std::vector<std::string> env;
  std::unique_ptr<CLI::App> app = std::make_unique<CLI::App>("launch", "muster launch");

  Launch() {
    app->add_option("-w,--hosts", hosts);
    app->add_option("-H,--hostfile", hostfile)->type_name("FILE");
    app->add_option("--run-dir", run_dir)->type_name("DIR");
    app->add_option("--transport", transport)->check(CLI::IsMember({"auto", "ssh"}));
    app->add_option("--nproc-per-node", nproc)->check(CLI::Range(1, 64));
    app->add_option("--grace", grace);
    app->add_flag("-q,--quiet", quiet);
    auto* per = app->add_flag("--per-node", per_node);
    app->add_option("--env", env)->excludes(per);
  }
  void parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());
    app->parse(args);
  }
};

ConfigFile file(std::string_view text, const std::string& path, const std::string& role = "project") {
  auto parsed = parse_config_text(text, path, role);
  EXPECT_TRUE(parsed) << parsed.error().message;
  return parsed ? *parsed : ConfigFile{};
}

Result<AppliedSettings> apply(Launch& launch, const ConfigSet& set) {
  return apply_config(*launch.app, {"launch"}, set, "/home/u");
}

TEST(ConfigApply, FlagsWinThenProjectThenUserAndTheMostSpecificTable) {
  ConfigSet set;
  set.files.push_back(file("hosts = \"top\"\nnproc-per-node = 2\n[launch]\nhosts = \"launch\"\n",
                           "/p/muster.toml"));
  set.files.push_back(file("nproc-per-node = 8\ngrace = 9.5\n[launch]\nquiet = true\n",
                           "/home/u/.config/muster/config.toml", "user"));
  Launch launch;
  launch.parse({"--transport", "ssh"});
  auto applied = apply(launch, set);
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(launch.hosts, "launch");  // [launch] beats the top level of the same file
  EXPECT_EQ(launch.nproc, 2);         // the project beats the user
  EXPECT_EQ(launch.grace, 9.5);       // the user's file fills what the project leaves
  EXPECT_TRUE(launch.quiet);
  EXPECT_EQ(launch.transport, "ssh");  // the flag
  const Applied& hosts = applied->at("launch hosts");
  EXPECT_EQ(hosts.setting->source.text(), "/p/muster.toml:4");
  ASSERT_EQ(hosts.shadowed.size(), 1u);
  EXPECT_EQ(hosts.shadowed[0]->source.text(), "/p/muster.toml:1");
  EXPECT_EQ(applied->at("launch nproc-per-node").shadowed.at(0)->source.text(),
            "/home/u/.config/muster/config.toml:1");
  EXPECT_EQ(applied->count("launch transport"), 0u);
}

TEST(ConfigApply, AFlagReplacesTheFilesList) {
  ConfigSet set;
  set.files.push_back(file("[launch]\nenv = [\"A=1\", \"B=2\"]\n", "/p/muster.toml"));
  Launch from_file;
  from_file.parse({});
  ASSERT_TRUE(apply(from_file, set));
  EXPECT_EQ(from_file.env, (std::vector<std::string>{"A=1", "B=2"}));
  Launch from_flag;
  from_flag.parse({"--env", "C=3"});
  ASSERT_TRUE(apply(from_flag, set));
  EXPECT_EQ(from_flag.env, std::vector<std::string>{"C=3"});
}

TEST(ConfigApply, AnOptionExcludedByAFlagTakesNothingFromTheFile) {
  ConfigSet set;
  set.files.push_back(file("[launch]\nenv = [\"A=1\"]\n", "/p/muster.toml"));
  Launch launch;
  launch.parse({"--per-node"});
  ASSERT_TRUE(apply(launch, set));
  EXPECT_TRUE(launch.env.empty());
}

TEST(ConfigApply, PathsAreRelativeToTheFilesDirectoryAndTildeIsHome) {
  ConfigSet set;
  set.files.push_back(file("hostfile = \"conf/hosts\"\nrun-dir = \"~/runs\"\nhosts = \"rel/not/a/path\"\n",
                           "/p/muster.toml"));
  Launch launch;
  launch.parse({});
  ASSERT_TRUE(apply(launch, set));
  EXPECT_EQ(launch.hostfile, "/p/conf/hosts");
  EXPECT_EQ(launch.run_dir, "/home/u/runs");
  EXPECT_EQ(launch.hosts, "rel/not/a/path");
}

TEST(ConfigApply, BadValuesNameFileLineAndKey) {
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c : {
           Case{"[launch]\ntransport = \"bogus\"\n", "/p/muster.toml:2: [launch] transport: --transport: bogus not in"},
           Case{"nproc-per-node = 0\n", "/p/muster.toml:1: nproc-per-node: --nproc-per-node: Value 0 not in range"},
           Case{"grace = \"soon\"\n", "/p/muster.toml:1: grace: Could not convert"},
           Case{"hosts = [\"a\", \"b\"]\n", "/p/muster.toml:1: hosts: takes one value, not a list of 2"},
           Case{"quiet = \"yes\"\n", "/p/muster.toml:1: quiet: a flag takes true or false"},
       }) {
    ConfigSet set;
    set.files.push_back(file(c.text, "/p/muster.toml"));
    Launch launch;
    launch.parse({});
    auto applied = apply(launch, set);
    ASSERT_FALSE(applied) << c.text;
    EXPECT_EQ(applied.error().kind, ErrorKind::usage);
    EXPECT_EQ(applied.error().message.rfind(c.expected, 0), 0u) << applied.error().message;
  }
}

TEST(ConfigApply, FalseTurnsAFlagOff) {
  ConfigSet set;
  set.files.push_back(file("quiet = false\n", "/p/muster.toml"));
  Launch launch;
  launch.parse({});
  ASSERT_TRUE(apply(launch, set));
  EXPECT_FALSE(launch.quiet);
}

TEST(ConfigExplain, EveryOptionWithItsSource) {
  ConfigSet set;
  set.files.push_back(file("hosts = \"a\"\n[launch]\nenv = [\"A=1\"]\n", "/p/muster.toml"));
  set.files.push_back(file("hosts = \"b\"\n", "/u/config.toml", "user"));
  Launch launch;
  launch.parse({"--nproc-per-node", "4"});
  auto applied = apply(launch, set);
  ASSERT_TRUE(applied);
  std::string text = render_effective_settings(*launch.app, {"launch"}, *applied);
  EXPECT_NE(text.find("muster launch:\n"), std::string::npos) << text;
  auto line_of = [&](const std::string& key) {
    size_t at = text.find("  " + key + " ");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_NE(line_of("hosts").find("\"a\""), std::string::npos) << text;
  EXPECT_NE(line_of("hosts").find("/p/muster.toml:1 (hides /u/config.toml:1)"), std::string::npos) << text;
  EXPECT_NE(line_of("nproc-per-node").find("4"), std::string::npos) << text;
  EXPECT_NE(line_of("nproc-per-node").find("flag"), std::string::npos) << text;
  EXPECT_NE(line_of("env").find("[\"A=1\"]"), std::string::npos) << text;
  EXPECT_NE(line_of("grace").find("default"), std::string::npos) << text;
  EXPECT_NE(line_of("quiet").find("false"), std::string::npos) << text;
  std::string files_only = render_file_settings(*launch.app, {"launch"}, *applied);
  EXPECT_EQ(files_only, "\n[launch]\nhosts = \"a\"  # /p/muster.toml:1 (hides /u/config.toml:1)\n"
                        "env = [\"A=1\"]  # /p/muster.toml:3\n");
}

}  // namespace
}  // namespace muster::config
