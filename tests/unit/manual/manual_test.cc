#include <cstdio>
#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "manual/bash_completion.h"
#include "manual/man_page.h"
#include "manual/roff.h"
#include "manual/zsh_completion.h"

namespace muster::manual {
namespace {

using cli_spec::CommandSpec;

TEST(Roff, EscapesWhatGroffWouldMisread) {
  EXPECT_EQ(roff_escape("--per-node"), "\\-\\-per\\-node");
  EXPECT_EQ(roff_escape("a\\b"), "a\\eb");
  EXPECT_EQ(roff_escape(".starts with a dot\n'and a quote"), "\\&.starts with a dot\n\\&'and a quote");
  EXPECT_EQ(roff_escape("N×N"), "N\\[u00D7]N");
  EXPECT_EQ(roff_bold("-H"), "\\fB\\-H\\fR");
}

// Two commands as muster's table would describe them.
std::vector<CommandSpec> commands() {
  std::vector<CommandSpec> out;
  {
    CLI::App app("Start a command on every node.\n  muster launch -w 'n[1-2]' -- python3 train.py", "muster launch");
    std::string text;
    int number = 0;
    std::vector<std::string> list;
    app.add_option("-H,--hostfile", text, "hostfile: 'host slots=N'")->type_name("FILE")->group("Hosts");
    app.add_option("--nproc-per-node", number, "workers per node")->group("Hosts");
    app.add_option("--transport", text, "how")->check(CLI::IsMember({"auto", "ssh"}));
    app.add_option("--env", list, "K=V");
    app.footer("Exit codes: 0 ok.");
    app.prefix_command();
    out.push_back(cli_spec::describe_app(app, {"launch"}));
    out.back().summary = "start a job";
    out.back().configurable = true;
  }
  {
    CLI::App app("Set up.", "muster setup");
    bool dry = false;
    app.add_subcommand("ssh", "keys everywhere")->add_flag("--dry-run", dry, "change nothing");
    app.add_subcommand("hosts", "/etc/hosts")->add_flag("--dry-run", dry, "change nothing");
    out.push_back(cli_spec::describe_app(app, {"setup"}));
  }
  return out;
}

ManualInfo info() { return {"1.2.3", "multi-node training", "muster does things."}; }

TEST(ManPage, CommandPageHasEverySection) {
  ManPage page = render_command_page(commands()[0], info());
  EXPECT_EQ(page.name, "muster-launch");
  const std::string& t = page.text;
  EXPECT_EQ(t.rfind(".TH MUSTER\\-LAUNCH 1 \"\" \"muster 1.2.3\" \"muster manual\"\n", 0), 0u) << t;
  EXPECT_NE(t.find(".SH NAME\nmuster\\-launch \\- start a job\n"), std::string::npos) << t;
  EXPECT_NE(t.find(".B muster launch\n[\\fIoptions\\fR] [\\fB\\-\\-\\fR] \\fICOMMAND\\fR"), std::string::npos) << t;
  EXPECT_NE(t.find(".nf\nmuster launch \\-w 'n[1\\-2]' \\-\\- python3 train.py\n.fi"), std::string::npos) << t;
  EXPECT_NE(t.find(".SS Hosts\n.TP\n\\fB\\-H\\fR, \\fB\\-\\-hostfile\\fR \\fIFILE\\fR\nhostfile: 'host slots=N'\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("how. One of: \\fBauto\\fR, \\fBssh\\fR."), std::string::npos) << t;
  EXPECT_NE(t.find("K=V. Repeatable."), std::string::npos) << t;
  EXPECT_NE(t.find(".SH CONFIGURATION\n"), std::string::npos) << t;
  EXPECT_NE(t.find("[launch]\nhostfile = \"FILE\"\nnproc\\-per\\-node = 1\n"), std::string::npos) << t;
  EXPECT_NE(t.find(".SH EXIT STATUS\n.PP\nExit codes: 0 ok.\n"), std::string::npos) << t;
}

TEST(ManPage, SubcommandsOnTheirParentsPageAndTheMainPageListsEveryPage) {
  auto pages = render_man_pages(commands(), info());
  ASSERT_EQ(pages.size(), 3u);
  EXPECT_EQ(pages[0].name, "muster");
  EXPECT_NE(pages[0].text.find("\\fBmuster\\-launch\\fR(1)\nstart a job\n"), std::string::npos) << pages[0].text;
  EXPECT_NE(pages[0].text.find("\\fBmuster\\-setup\\fR(1)"), std::string::npos);
  const std::string& setup = pages[2].text;
  EXPECT_NE(setup.find(".B muster setup ssh\n[\\fIoptions\\fR]\n.br\n.B muster setup hosts\n"), std::string::npos)
      << setup;
  EXPECT_NE(setup.find(".SS muster setup ssh\n.PP\nkeys everywhere\n.TP\n\\fB\\-\\-dry\\-run\\fR\nchange nothing\n"),
            std::string::npos)
      << setup;
  EXPECT_EQ(setup.find(".SH CONFIGURATION"), std::string::npos);  // not configurable
}

// Runs `script` in bash with the completion script sourced; returns its stdout.
std::string run_bash(const std::string& completion, const std::string& script) {
  auto dir = std::filesystem::temp_directory_path() / "muster-manual-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "muster.bash") << completion;
  std::ofstream(dir / "drive.sh")
      << "source " << (dir / "muster.bash").string() << "\n"
      << "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _muster muster; echo \"${COMPREPLY[*]}\"; }\n"
      << script;
  std::string out;
  FILE* pipe = ::popen(("bash " + (dir / "drive.sh").string() + " 2>&1").c_str(), "r");
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  ::pclose(pipe);
  std::filesystem::remove_all(dir);
  return out;
}

TEST(BashCompletion, CompletesCommandsSubcommandsOptionsAndValues) {
  std::string script = render_bash_completion(commands());
  EXPECT_EQ(run_bash(script, "t muster la\n"), "launch\n");
  EXPECT_EQ(run_bash(script, "t muster ''\n"), "launch setup\n");
  EXPECT_EQ(run_bash(script, "t muster launch --npr\n"), "--nproc-per-node\n");
  EXPECT_EQ(run_bash(script, "t muster launch --transport s\n"), "ssh\n");
  EXPECT_EQ(run_bash(script, "t muster launch --transport = a\n"), "auto\n");  // --transport=a, split at '='
  EXPECT_EQ(run_bash(script, "t muster setup h\n"), "hosts\n");
  EXPECT_EQ(run_bash(script, "t muster setup ssh --d\n"), "--dry-run\n");
  // After the command starts, its own words are not muster's options.
  EXPECT_EQ(run_bash(script, "t muster launch --nproc-per-node 2 python3 --npr\n"), "\n");
}

TEST(ZshCompletion, OneFunctionPerCommandWithEveryOption) {
  std::string script = render_zsh_completion(commands());
  EXPECT_EQ(script.rfind("#compdef muster\n", 0), 0u);
  EXPECT_NE(script.find("_muster__launch() {"), std::string::npos) << script;
  EXPECT_NE(script.find("'(-H --hostfile)--hostfile=[hostfile\\: '\\''host slots=N'\\'']:FILE:_files'"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("'(--transport)--transport=[how]:TEXT:(auto ssh)'"), std::string::npos) << script;
  EXPECT_NE(script.find("'*--env=[K=V]:TEXT: '"), std::string::npos) << script;
  EXPECT_NE(script.find("'*::command:_normal'"), std::string::npos) << script;
  EXPECT_NE(script.find("'ssh') _muster__setup__ssh ;;"), std::string::npos) << script;
  EXPECT_NE(script.find("_muster_main \"$@\"\n"), std::string::npos) << script;
}

}  // namespace
}  // namespace muster::manual
