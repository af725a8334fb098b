#include "launch/env_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace muster::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;

const std::map<std::string, std::string> kHead = {
    {"PATH", "/usr/bin"},
    {"HOME", "/home/me"},
    {"SSH_AUTH_SOCK", "/tmp/ssh-x"},
    {"LANG", "C.UTF-8"},
    {"NCCL_DEBUG", "INFO"},
    {"PYTHONPATH", "/code"},
    {"CUDA_VISIBLE_DEVICES", "0,1"},
    {"CUDA_LAUNCH_BLOCKING", "1"},
    {"CUDA_HOME", "/usr/local/cuda"},
    {"LD_LIBRARY_PATH", "/opt/lib"},
    {"HF_TOKEN", "hf_abc"},
    {"WANDB_PROJECT", "p"},
    {"MY_SETTING", "mine"},
    {"MYAPP_MODE", "fast"},
    {"TORCHELASTIC_RUN_ID", "stale"},
    {"MUSTER_LOG", "debug"},
    {"RANK", "7"},
    {"A-B", "odd"},
};

Result<EnvList> propagate(const EnvPolicy& policy) {
  return propagated_env(kHead, policy);
}

std::string error_of(const Result<EnvList>& result) {
  return result ? std::string("(no error)") : result.error().message;
}

TEST(PropagatedEnv, DefaultsCarryTheAllowlistOnly) {
  auto env = propagate({});
  ASSERT_TRUE(env) << error_of(env);
  EXPECT_THAT(
      *env, ElementsAre(Pair("CUDA_LAUNCH_BLOCKING", "1"), Pair("HF_TOKEN", "hf_abc"),
                        Pair("NCCL_DEBUG", "INFO"), Pair("PYTHONPATH", "/code"), Pair("WANDB_PROJECT", "p")));
}

TEST(PropagatedEnv, ExtraPrefixesStillSkipTheDenylistAndMusterNames) {
  EnvPolicy policy;
  policy.extra_prefixes = {"MY", "SSH_", "LD_", "TORCHELASTIC_", "MUSTER_", "RAN", "LAN"};
  auto env = propagate(policy);
  ASSERT_TRUE(env) << error_of(env);
  EXPECT_THAT(*env,
              ElementsAre(Pair("CUDA_LAUNCH_BLOCKING", "1"), Pair("HF_TOKEN", "hf_abc"),
                          Pair("MYAPP_MODE", "fast"), Pair("MY_SETTING", "mine"), Pair("NCCL_DEBUG", "INFO"),
                          Pair("PYTHONPATH", "/code"), Pair("WANDB_PROJECT", "p")));
}

TEST(PropagatedEnv, DefaultsOff) {
  EnvPolicy policy;
  policy.propagate_defaults = false;
  policy.extra_prefixes = {"WANDB_"};
  auto env = propagate(policy);
  ASSERT_TRUE(env) << error_of(env);
  EXPECT_THAT(*env, ElementsAre(Pair("WANDB_PROJECT", "p")));
}

TEST(PropagatedEnv, BadPrefix) {
  EnvPolicy policy;
  policy.extra_prefixes = {""};
  EXPECT_THAT(error_of(propagate(policy)), HasSubstr("--env-prefix \"\""));
  policy.extra_prefixes = {"A-"};
  EXPECT_THAT(error_of(propagate(policy)), HasSubstr("--env-prefix \"A-\""));
}

TEST(PropagatedEnv, PrecedenceDefaultsThenFilesThenFlags) {
  EnvPolicy policy;
  policy.files = {{"first.env", "NCCL_DEBUG=WARN\nX=file1\nY=file1\n"}, {"second.env", "Y=file2\nZ=file2\n"}};
  policy.set = {"Z=flag", "PATH=/opt/bin", "NCCL_DEBUG=TRACE", "NCCL_DEBUG=VERSION"};
  auto env = propagate(policy);
  ASSERT_TRUE(env) << error_of(env);
  EXPECT_THAT(*env, ElementsAre(Pair("CUDA_LAUNCH_BLOCKING", "1"), Pair("HF_TOKEN", "hf_abc"),
                                Pair("NCCL_DEBUG", "VERSION"), Pair("PATH", "/opt/bin"),
                                Pair("PYTHONPATH", "/code"), Pair("WANDB_PROJECT", "p"), Pair("X", "file1"),
                                Pair("Y", "file2"), Pair("Z", "flag")));
}

TEST(PropagatedEnv, FlagCopiesFromHeadAndKeepsValueVerbatim) {
  EnvPolicy policy;
  policy.propagate_defaults = false;
  policy.set = {"LD_LIBRARY_PATH", "EMPTY=", "ODD='a b' $HOME=x"};
  auto env = propagate(policy);
  ASSERT_TRUE(env) << error_of(env);
  EXPECT_THAT(*env, ElementsAre(Pair("EMPTY", ""), Pair("LD_LIBRARY_PATH", "/opt/lib"),
                                Pair("ODD", "'a b' $HOME=x")));
}

TEST(PropagatedEnv, FlagErrors) {
  EnvPolicy policy;
  policy.set = {"1X=2"};
  EXPECT_THAT(error_of(propagate(policy)), HasSubstr("\"1X\" is not a valid variable name"));
  policy.set = {"A-B=2"};
  EXPECT_THAT(error_of(propagate(policy)), HasSubstr("\"A-B\" is not a valid variable name"));
  policy.set = {"=2"};
  EXPECT_THAT(error_of(propagate(policy)), HasSubstr("\"\" is not a valid variable name"));
  policy.set = {"NOT_ON_HEAD"};
  EXPECT_THAT(error_of(propagate(policy)), HasSubstr("NOT_ON_HEAD is not set in muster's environment"));
  policy.set = {"RANK=3"};
  EXPECT_THAT(error_of(propagate(policy)), HasSubstr("RANK is set by muster"));
  policy.set = {"MASTER_PORT"};
  EXPECT_THAT(error_of(propagate(policy)), HasSubstr("MASTER_PORT is set by muster"));
  policy.set = {"CUDA_VISIBLE_DEVICES=2"};  // explicit device pinning is the user's call
  EXPECT_TRUE(propagate(policy));
}

TEST(PropagatedEnv, FileErrorsNameFileAndLine) {
  EnvPolicy policy;
  policy.files = {{"ok.env", "A=1\n"}, {"job.env", "# header\nA=1\nWORLD_SIZE=4\n"}};
  EXPECT_EQ(error_of(propagate(policy)),
            "job.env:3:1: WORLD_SIZE is set by muster for every process and cannot be overridden");
  policy.files = {{"job.env", "\nNOPE\n"}};
  EXPECT_THAT(error_of(propagate(policy)), HasSubstr("job.env:2:1: NOPE is not set in muster's environment"));
  policy.files = {{"job.env", "HF_HOME=x\nexport MY_SETTING\n"}};
  auto env = propagate(policy);
  ASSERT_TRUE(env) << error_of(env);
  EXPECT_THAT(*env, testing::Contains(Pair("MY_SETTING", "mine")));
}

// ---- parse_env_file --------------------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> parsed(std::string_view text) {
  auto entries = parse_env_file(text, "t.env");
  EXPECT_TRUE(entries) << entries.error().message;
  std::vector<std::pair<std::string, std::string>> out;
  if (entries) {
    for (const auto& e : *entries) out.emplace_back(e.name, e.copy_from_head ? "<head>" : e.value);
  }
  return out;
}

std::string parse_error(std::string_view text) {
  auto entries = parse_env_file(text, "t.env");
  return entries ? std::string("(no error)") : entries.error().message;
}

TEST(ParseEnvFile, DeepSpeedEnvStyle) {
  EXPECT_THAT(parsed("NCCL_IB_HCA=mlx5_0,mlx5_1\nNCCL_SOCKET_IFNAME=eth0\n"),
              ElementsAre(Pair("NCCL_IB_HCA", "mlx5_0,mlx5_1"), Pair("NCCL_SOCKET_IFNAME", "eth0")));
}

TEST(ParseEnvFile, CommentsBlanksExportCrlfBom) {
  EXPECT_THAT(
      parsed("\xEF\xBB\xBF# top\r\n\r\n   \n  export A=1 # trailing\r\n\tB=2\t\nexport\tC=3\nexport=4"),
      ElementsAre(Pair("A", "1"), Pair("B", "2"), Pair("C", "3"), Pair("export", "4")));
}

TEST(ParseEnvFile, Quotes) {
  EXPECT_THAT(parsed(R"(S='a b # c $HOME'
D="x \"y\" \\ \$z \n"
MIX=pre'single'"double"post
EMPTY=
EMPTYQ=''
ESC=a\ b
HASH=a#b
URL=http://h/p#frag
DICT={'a':1}
DICTQ="{'a':1}"
)"),
              ElementsAre(Pair("S", "a b # c $HOME"), Pair("D", "x \"y\" \\ $z \\n"),
                          Pair("MIX", "presingledoublepost"), Pair("EMPTY", ""), Pair("EMPTYQ", ""),
                          Pair("ESC", "a b"), Pair("HASH", "a#b"), Pair("URL", "http://h/p#frag"),
                          Pair("DICT", "{a:1}"),  // as a shell reads it: the quotes are syntax
                          Pair("DICTQ", "{'a':1}")));
}

TEST(ParseEnvFile, BareNameCopiesFromHead) {
  auto entries = parse_env_file("A=1\nWANDB_API_KEY\n", "t.env");
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_FALSE((*entries)[0].copy_from_head);
  EXPECT_TRUE((*entries)[1].copy_from_head);
  EXPECT_EQ((*entries)[1].line, 2);
}

TEST(ParseEnvFile, ErrorsNameFileLineColumn) {
  EXPECT_EQ(
      parse_error("A=1\n1X=2\n"),
      "t.env:2:1: \"1X\" is not a valid variable name (letters, digits and '_', not starting with a digit)");
  EXPECT_THAT(parse_error("A-B=2"), HasSubstr("t.env:1:1: \"A-B\" is not a valid variable name"));
  EXPECT_THAT(parse_error("\n\n  =2"), HasSubstr("t.env:3:3: expected a variable name"));
  EXPECT_THAT(parse_error("A B"), HasSubstr("t.env:1:3: expected '=' after A"));
  EXPECT_THAT(parse_error("A=hello world"), HasSubstr("t.env:1:9: 'world' after the value"));
  EXPECT_THAT(parse_error("A= B"), HasSubstr("t.env:1:4: 'B' after the value"));
  EXPECT_THAT(parse_error("A='open"), HasSubstr("t.env:1:3: unterminated single quote"));
  EXPECT_THAT(parse_error("A=\"open"), HasSubstr("t.env:1:3: unterminated double quote"));
  EXPECT_THAT(parse_error("P=$PYTHONPATH:/x"),
              HasSubstr("t.env:1:3: '$' in a value: muster does not expand"));
  EXPECT_THAT(parse_error("P=\"${HOME}\""), HasSubstr("t.env:1:4: '$'"));
  EXPECT_THAT(parse_error("P=`id`"), HasSubstr("t.env:1:3: '`'"));
  EXPECT_THAT(parse_error("H=~/cache"), HasSubstr("t.env:1:3: muster does not expand '~'"));
  EXPECT_THAT(parse_error("C=a;b"), HasSubstr("t.env:1:4: unquoted ';'"));
  EXPECT_THAT(parse_error("C=a\\"), HasSubstr("t.env:1:4: a line may not end in '\\'"));
  EXPECT_THAT(parse_error(std::string_view("A=1\nB=x\0y", 9)), HasSubstr("t.env:2:4: NUL byte"));
}

TEST(ParseEnvFile, QuotedSpecialsAreFine) {
  EXPECT_THAT(parsed("A='$x ~ ; `'\nB=x~y\nC=\"a;b|c\""),
              ElementsAre(Pair("A", "$x ~ ; `"), Pair("B", "x~y"), Pair("C", "a;b|c")));
}

// ---- secrets ----------------------------------------------------------------------------------------

TEST(IsSecret, CredentialNames) {
  for (const char* name : {"HF_TOKEN",
                           "hf_token",
                           "HUGGING_FACE_HUB_TOKEN",
                           "HUGGINGFACEHUB_API_TOKEN",
                           "WANDB_API_KEY",
                           "AWS_SECRET_ACCESS_KEY",
                           "AWS_SESSION_TOKEN",
                           "MLFLOW_TRACKING_PASSWORD",
                           "MLFLOW_TRACKING_TOKEN",
                           "GOOGLE_APPLICATION_CREDENTIALS",
                           "OPENAI_APIKEY",
                           "GH_PAT",
                           "DB_PASS",
                           "DB_PASSWD",
                           "SSH_PASSPHRASE",
                           "CLIENTSECRET",
                           "GITHUB_ACCESSTOKEN",
                           "SIGNING_KEYS",
                           "PRIVATEKEY",
                           "TOKEN",
                           "KEY"}) {
    EXPECT_TRUE(is_secret(name)) << name;
  }
}

TEST(IsSecret, LookAlikesAreNot) {
  for (const char* name :
       {"TOKENIZERS_PARALLELISM", "MONKEY", "MONKEY_PATCH", "KEYBOARD", "NCCL_IB_PKEY", "SSH_AUTH_SOCK",
        "PWD", "PATH", "HOTKEY", "PASSTHROUGH", "BYPASS_CACHE", "NCCL_DEBUG", "TORCH_COMPILE_KEYWORDS", ""}) {
    EXPECT_FALSE(is_secret(name)) << name;
  }
}

TEST(Redact, SecretsAndUrlPasswords) {
  EXPECT_EQ(redact("HF_TOKEN", "hf_abc"), "***");
  EXPECT_EQ(redact("NCCL_DEBUG", "INFO"), "INFO");
  EXPECT_EQ(redact("MLFLOW_TRACKING_URI", "https://bob:hunter2@mlflow.example:5000/x"),
            "https://bob:***@mlflow.example:5000/x");
  EXPECT_EQ(redact("DSNS", "a=postgres://u:p@h/db,b=redis://h:6379,c=s3://k:s@b"),
            "a=postgres://u:***@h/db,b=redis://h:6379,c=s3://k:***@b");
  EXPECT_EQ(redact("URL", "http://user@host/path:x@y"), "http://user@host/path:x@y");
  EXPECT_EQ(redact("URL", "ftp://"), "ftp://");
}

TEST(ShellQuote, BareOrSingleQuoted) {
  EXPECT_EQ(shell_quote("INFO"), "INFO");
  EXPECT_EQ(shell_quote("/a/b:c,d=e@f%g+h-i.j_k"), "/a/b:c,d=e@f%g+h-i.j_k");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("$HOME;rm -rf /"), "'$HOME;rm -rf /'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("***"), "'***'");
}

TEST(ShellQuote, ReadsBackThroughTheEnvFileParser) {
  for (std::string value :
       {"plain", "", "a b", "it's", "'", "$x `y` ~z", "a\"b\\c", "{'a': 1}", "#x", "***"}) {
    auto entries = parse_env_file("V=" + shell_quote(value) + "\n", "q.env");
    ASSERT_TRUE(entries) << value << ": " << entries.error().message;
    EXPECT_EQ((*entries)[0].value, value);
  }
}

// ---- listing ----------------------------------------------------------------------------------------

TEST(EnvListing, SplitsCommonFromPerProcess) {
  const EnvListing listing = make_env_listing(
      "node 0 (a)", {{"rank 0", {{"RANK", "0"}, {"NCCL_DEBUG", "INFO"}, {"X", "1"}}},
                     {"rank 1", {{"NCCL_DEBUG", "INFO"}, {"RANK", "1"}, {"X", "2"}, {"ONLY1", "y"}}}});
  EXPECT_THAT(listing.common, ElementsAre(Pair("NCCL_DEBUG", "INFO")));
  ASSERT_EQ(listing.processes.size(), 2u);
  EXPECT_THAT(listing.processes[0].second, ElementsAre(Pair("RANK", "0"), Pair("X", "1")));
  EXPECT_THAT(listing.processes[1].second,
              ElementsAre(Pair("ONLY1", "y"), Pair("RANK", "1"), Pair("X", "2")));
}

TEST(EnvListing, OneProcessIsAllCommon) {
  const EnvListing listing = make_env_listing("node 1 (b)", {{"node process", {{"B", "2"}, {"A", "1"}}}});
  EXPECT_THAT(listing.common, ElementsAre(Pair("A", "1"), Pair("B", "2")));
  EXPECT_THAT(listing.processes, IsEmpty());
}

TEST(EnvListing, FormatIsRedactedQuotedAndPasteable) {
  const std::vector<EnvListing> nodes = {
      make_env_listing("node 0 (a)",
                       {{"rank 0", {{"RANK", "0"}, {"HF_TOKEN", "hf_abc"}, {"MSG", "it's ok"}}},
                        {"rank 1", {{"RANK", "1"}, {"HF_TOKEN", "hf_abc"}, {"MSG", "it's ok"}}}}),
      make_env_listing("node 1 (b)", {{"node", {{"NODE_RANK", "1"}, {"EMPTY", ""}}}}),
  };
  EXPECT_EQ(format_env_listing(nodes),
            "# node 0 (a)\n"
            "HF_TOKEN='***'\n"
            "MSG='it'\\''s ok'\n"
            "# node 0 (a), rank 0\n"
            "RANK=0\n"
            "# node 0 (a), rank 1\n"
            "RANK=1\n"
            "\n"
            "# node 1 (b)\n"
            "EMPTY=''\n"
            "NODE_RANK=1\n");
  EXPECT_EQ(format_env_listing({}), "");
}

TEST(DefaultPrefixes, DocumentedFamiliesAndNoHardwareOrPaths) {
  const auto& prefixes = default_env_prefixes();
  for (std::string_view p :
       {"NCCL_", "GLOO_", "PYTHON", "CUDA_", "HF_", "TRANSFORMERS_", "TORCH_", "TORCHINDUCTOR_", "WANDB_",
        "MLFLOW_", "UCX_", "MV2_", "OMP_", "MKL_", "KMP_", "DS_", "ACCELERATE_", "TOKENIZERS_"}) {
    EXPECT_NE(std::find(prefixes.begin(), prefixes.end(), p), prefixes.end()) << p;
  }
  for (std::string_view p : prefixes) {
    EXPECT_FALSE(std::string_view("LD_LIBRARY_PATH").starts_with(p)) << p;
    EXPECT_FALSE(std::string_view("TORCHELASTIC_RUN_ID").starts_with(p)) << p;
  }
}

TEST(IsValidEnvName, Rules) {
  EXPECT_TRUE(is_valid_env_name("_A1"));
  EXPECT_TRUE(is_valid_env_name("lower"));
  EXPECT_FALSE(is_valid_env_name(""));
  EXPECT_FALSE(is_valid_env_name("1X"));
  EXPECT_FALSE(is_valid_env_name("A-B"));
  EXPECT_FALSE(is_valid_env_name("A.B"));
  EXPECT_FALSE(is_valid_env_name("A B"));
}

}  // namespace
}  // namespace muster::launch
