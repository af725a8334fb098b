#include "config/starter.h"

#include <gtest/gtest.h>

#include "config/check.h"
#include "config/toml_reader.h"

namespace muster::config {
namespace {

using cli_spec::CommandSpec;

struct Init {
  std::string hosts, hostfile, exclude, output;
  int nproc = 0;
  bool force = false;
  std::unique_ptr<CLI::App> app = std::make_unique<CLI::App>("init", "muster init");
  Init() {
    app->add_option("-o,--output", output)->type_name("FILE");
    app->add_flag("--force", force);
    app->add_option("-H,--hostfile", hostfile, "DeepSpeed/MPI hostfile")->type_name("FILE");
    app->add_option("-w,--hosts", hosts, "hostlist");
    app->add_option("--exclude", exclude, "DeepSpeed filter");
    app->add_option("--nproc-per-node", nproc, "workers per node");
  }
  void parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());
    app->parse(args);
  }
};

// The commands as muster's table describes them, reduced: launch and sync share hosts, differ on exclude.
std::vector<CommandSpec> commands() {
  std::vector<CommandSpec> out;
  for (const char* name : {"launch", "sync", "plan"}) {
    CLI::App app("", std::string("muster ") + name);
    std::string text;
    int number = 0;
    std::vector<std::string> list;
    bool flag = false;
    app.add_option("-H,--hostfile", text, "DeepSpeed/MPI hostfile")->type_name("FILE");
    app.add_option("-w,--hosts", text, "hostlist");
    app.add_option("--nproc-per-node", number, "workers per node");
    if (std::string(name) == "sync") {
      app.add_option("--exclude", list, "gitignore pattern");
    } else {
      app.add_option("--exclude", text, "DeepSpeed filter");
    }
    if (std::string(name) == "launch") {
      app.add_option("--env", list, "K=V for every worker");
      app.add_flag("-q,--quiet", flag, "no notices");
    }
    out.push_back(cli_spec::describe_app(app, {name}));
    out.back().configurable = true;
  }
  return out;
}

TEST(Starter, GivenSettingsAtTheTopOthersCommentedAndTheFileChecksClean) {
  Init init;
  init.parse({"-w", "node[1-4]", "--nproc-per-node", "8", "--exclude", "node1:0", "-H", "conf/hosts"});
  StarterInput input{init.app.get(), {"output", "force"}, "muster init -w 'node[1-4]' ...", "/p", "/p"};
  std::string text = render_starter(input, commands());
  EXPECT_NE(text.find("\nhosts = \"node[1-4]\"\nnproc-per-node = 8\n"), std::string::npos) << text;
  EXPECT_NE(text.find("hostfile = \"conf/hosts\"\n"), std::string::npos) << text;
  // exclude means different things for launch and sync: it goes into [launch]
  EXPECT_NE(text.find("[launch]\nexclude = \"node1:0\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# K=V for every worker\n# env = []\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# quiet = false\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n[sync]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[plan]"), std::string::npos) << text;  // named in the closing comment
  auto file = parse_config_text(text, "/p/muster.toml", "project");
  ASSERT_TRUE(file) << file.error().message << "\n" << text;
  EXPECT_EQ(file->settings.size(), 4u) << text;
  auto checked = check_config_file(*file, commands());
  EXPECT_TRUE(checked) << checked.error().message;
}

TEST(Starter, PathsGivenFromElsewhereStayCorrectFromTheFilesDirectory) {
  Init init;
  init.parse({"-H", "../hosts"});
  StarterInput inside{init.app.get(), {"output", "force"}, "muster init", "/p", "/p/sub"};
  EXPECT_NE(render_starter(inside, commands()).find("hostfile = \"hosts\"\n"), std::string::npos);
  StarterInput outside{init.app.get(), {"output", "force"}, "muster init", "/p/sub/deeper", "/p/sub"};
  EXPECT_NE(render_starter(outside, commands()).find("hostfile = \"/p/hosts\"\n"), std::string::npos);
}

TEST(Starter, NothingGivenIsAllComments) {
  Init init;
  init.parse({});
  StarterInput input{init.app.get(), {"output", "force"}, "muster init", "/p", "/p"};
  auto file = parse_config_text(render_starter(input, commands()), "/p/muster.toml", "project");
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_TRUE(file->settings.empty());
}

}  // namespace
}  // namespace muster::config
