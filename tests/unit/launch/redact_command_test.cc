#include "launch/redact_command.h"

#include <gtest/gtest.h>

namespace muster::launch {
namespace {

using Argv = std::vector<std::string>;

TEST(RedactCommand, OptionValuesAfterASecretOption) {
  EXPECT_EQ(redact_command({"python", "train.py", "--token", "abc", "--lr", "0.1"}),
            (Argv{"python", "train.py", "--token", "***", "--lr", "0.1"}));
  EXPECT_EQ(redact_command({"x", "--api-key=xyz", "--hf_token", "hf_123", "--password=p w"}),
            (Argv{"x", "--api-key=***", "--hf_token", "***", "--password=***"}));
  EXPECT_EQ(redact_command({"x", "--token", "a b", "--lr", "1"}), (Argv{"x", "--token", "***", "--lr", "1"}));
  EXPECT_EQ(redact_command({"x", "--wandb-api-key", "k", "--client-secret", "s"}),
            (Argv{"x", "--wandb-api-key", "***", "--client-secret", "***"}));
}

TEST(RedactCommand, CountsAndOrdinaryOptionsStay) {
  Argv argv = {"python", "gen.py", "--max-tokens", "512", "--num_keys", "4", "--tokenizer", "gpt2", "--epochs", "3"};
  EXPECT_EQ(redact_command(argv), argv);
  // A secret option followed by another option has no value to hide.
  EXPECT_EQ(redact_command({"x", "--use-key", "--epochs", "3"}), (Argv{"x", "--use-key", "--epochs", "3"}));
  EXPECT_EQ(redact_command({"x", "--token"}), (Argv{"x", "--token"}));
}

TEST(RedactCommand, AssignmentsToSecretVariables) {
  EXPECT_EQ(redact_command({"env", "HF_TOKEN=hf_abc", "WANDB_MODE=offline", "python", "x.py"}),
            (Argv{"env", "HF_TOKEN=***", "WANDB_MODE=offline", "python", "x.py"}));
  EXPECT_EQ(redact_command({"AWS_SECRET_ACCESS_KEY=s", "x"}), (Argv{"AWS_SECRET_ACCESS_KEY=***", "x"}));
}

TEST(RedactCommand, InsideAShellScriptArgument) {
  EXPECT_EQ(redact_command({"sh", "-c", "HF_TOKEN=abc python x.py --token t  --lr 1\n"}),
            (Argv{"sh", "-c", "HF_TOKEN=*** python x.py --token ***  --lr 1\n"}));
}

TEST(RedactCommand, UrlPasswords) {
  EXPECT_EQ(redact_command({"x", "--db", "postgres://me:hunter2@db/x", "MLFLOW_TRACKING_URI=http://u:p@h"}),
            (Argv{"x", "--db", "postgres://me:***@db/x", "MLFLOW_TRACKING_URI=http://u:***@h"}));
}

TEST(RedactCommand, IsSecretOption) {
  EXPECT_TRUE(is_secret_option("--token"));
  EXPECT_TRUE(is_secret_option("-api_key"));
  EXPECT_TRUE(is_secret_option("--access-token"));
  EXPECT_FALSE(is_secret_option("--max-new-tokens"));
  EXPECT_FALSE(is_secret_option("--keyboard"));
  EXPECT_FALSE(is_secret_option("--"));
}

}  // namespace
}  // namespace muster::launch
