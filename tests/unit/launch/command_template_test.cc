#include "launch/command_template.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace muster::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

TemplateValues values() {
  return TemplateValues{.node_rank = 1,
                        .nnodes = 2,
                        .master_addr = "10.0.0.1",
                        .master_port = 29500,
                        .nproc_per_node = 3,
                        .world_size = 5,
                        .job_id = "job-42"};
}

std::string expand(std::string_view arg) {
  return expand_placeholders(arg, values());
}

TEST(CommandTemplate, TorchrunCommand) {
  EXPECT_THAT(
      expand_command({"torchrun", "--nnodes={nnodes}", "--node-rank", "{node_rank}", "--master-addr",
                      "{master_addr}", "--master-port={master_port}", "--nproc-per-node", "{nproc_per_node}",
                      "train.py", "--world={world_size}", "--run={job_id}"},
                     values()),
      ElementsAre("torchrun", "--nnodes=2", "--node-rank", "1", "--master-addr", "10.0.0.1",
                  "--master-port=29500", "--nproc-per-node", "3", "train.py", "--world=5", "--run=job-42"));
}

TEST(CommandTemplate, SeveralPlaceholdersInOneArgument) {
  EXPECT_EQ(expand("{master_addr}:{master_port}/{node_rank}of{nnodes}{node_rank}"), "10.0.0.1:29500/1of21");
}

TEST(CommandTemplate, EscapeGivesTheLiteralPlaceholder) {
  EXPECT_EQ(expand("{{node_rank}}"), "{node_rank}");
  EXPECT_EQ(expand("f'{{node_rank}}={node_rank}'"), "f'{node_rank}=1'");
  EXPECT_EQ(expand("{{{node_rank}}}"), "{{node_rank}}");  // `{` + escape + `}`: left to right, escape first
}

TEST(CommandTemplate, PythonCodePassesThroughUntouched) {
  for (const char* code : {"d={'a':1}", "d={'a': {'b': 2}}", "print(f'{x} {{literal}}')", "s={1,2}; t={}",
                           "print(f\"{rank}/{nodes}\")", "{ }", "{", "}", "}}{{", "{node_rank", "node_rank}",
                           "{NODE_RANK}", "{ node_rank }", "{node_rank }", "{{x}}", "{node-rank}"}) {
    EXPECT_EQ(expand(code), code);
  }
  // Half an escape is an ordinary brace next to a placeholder.
  EXPECT_EQ(expand("{{node_rank}"), "{1");
  EXPECT_EQ(expand("{node_rank}}x"), "1}x");
  EXPECT_THAT(
      expand_command({"python", "-c", "import json; print(json.dumps({'rank': {node_rank}}))"}, values()),
      ElementsAre("python", "-c", "import json; print(json.dumps({'rank': 1}))"));
}

TEST(CommandTemplate, ShellMetacharactersUntouched) {
  EXPECT_THAT(
      expand_command(
          {"bash", "-c", "echo ${HOME} $NODE_RANK `id` \"$(date)\" a{b,c} > /dev/null; x && y | z"},
          values()),
      ElementsAre("bash", "-c", "echo ${HOME} $NODE_RANK `id` \"$(date)\" a{b,c} > /dev/null; x && y | z"));
  // A value is never split or re-parsed: it stays inside its argument.
  TemplateValues odd = values();
  odd.job_id = "a b;$(rm -rf /) {node_rank}";
  EXPECT_THAT(expand_command({"--id={job_id}", "x"}, odd),
              ElementsAre("--id=a b;$(rm -rf /) {node_rank}", "x"));
}

TEST(CommandTemplate, EmptyArgumentsAndCommand) {
  EXPECT_THAT(expand_command({}, values()), IsEmpty());
  EXPECT_THAT(expand_command({"", "{}"}, values()), ElementsAre("", "{}"));
}

TEST(CommandTemplate, ValuesFromPlan) {
  cluster::Host a, b;
  a.name = "a";
  b.name = "b";
  const auto plan = cluster::make_rank_plan({{a, {0, 1}}, {b, {0, 1, 2}}});
  JobInfo job;
  job.job_id = "j";
  job.master_addr = "h0";
  job.master_port = 1234;
  const TemplateValues v = template_values(plan, plan.nodes[1], job);
  EXPECT_EQ(v.node_rank, 1);
  EXPECT_EQ(v.nnodes, 2);
  EXPECT_EQ(v.master_addr, "h0");
  EXPECT_EQ(v.master_port, 1234);
  EXPECT_EQ(v.nproc_per_node, 3);
  EXPECT_EQ(v.world_size, 5);
  EXPECT_EQ(v.job_id, "j");
  EXPECT_EQ(template_values(plan, plan.nodes[0], job).nproc_per_node, 2);
}

TEST(CheckCommandTemplate, CleanTemplatesHaveNoWarnings) {
  EXPECT_THAT(check_command_template({"torchrun", "--node-rank={node_rank}", "{{node_rank}}", "python", "-c",
                                      "d={'a': {}}; print(f'{x}{rank}{value}')", "{", "{}", "a{b,c}"}),
              IsEmpty());
}

TEST(CheckCommandTemplate, LikelyTyposWarnButStillPassThrough) {
  const std::vector<std::string> argv = {"torchrun",    "--node-rank={node_rnak}", "{NODE_RANK}",
                                         "{node-rank}", "--nnodes={nodes}",        "{master_adr}"};
  const auto warnings = check_command_template(argv);
  ASSERT_THAT(warnings, SizeIs(5));
  EXPECT_THAT(warnings[0],
              HasSubstr("argument 1 '--node-rank={node_rnak}': {node_rnak} is not a placeholder"));
  EXPECT_THAT(warnings[0], HasSubstr("did you mean {node_rank}?"));
  EXPECT_THAT(warnings[0], HasSubstr("{node_rank} {nnodes} {master_addr} {master_port} {nproc_per_node} "
                                     "{world_size} {job_id}"));
  EXPECT_THAT(warnings[0], HasSubstr("{{node_rank}} stands for a literal {node_rank}"));
  EXPECT_THAT(warnings[1], HasSubstr("did you mean {node_rank}?"));
  EXPECT_THAT(warnings[2], HasSubstr("did you mean {node_rank}?"));
  EXPECT_THAT(warnings[3], HasSubstr("did you mean {nnodes}?"));
  EXPECT_THAT(warnings[4], HasSubstr("did you mean {master_addr}?"));
  EXPECT_EQ(expand_command(argv, values()), argv);
}

}  // namespace
}  // namespace muster::launch
