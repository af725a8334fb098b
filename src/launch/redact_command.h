// The user's command as muster records it (manifest.json): with credentials on the command line replaced by
// "***", judged by the same name rule as environment variables (env_policy.h's is_secret). Pure.
//
// A word is redacted when it is
//   - the value of an option whose name ends in a secret word: `--token abc`, `--api-key=xyz`, `--hf_token x`,
//     `--password=p` (a plural count such as `--max-tokens 512` or `--num-keys 4` is not a secret);
//   - the value of an assignment to a secret variable: `HF_TOKEN=abc python train.py`, `env WANDB_API_KEY=x ...`;
//   - the password of a URL: `postgres://user:***@host/db`.
// An argument that is not itself an option (or a secret option's value) is also looked at piece by piece
// (whitespace-separated), so a shell script passed as one argument (`sh -c 'HF_TOKEN=abc python x.py --token t'`)
// is covered too; whitespace is kept as it was. An option's own argument is one piece: `--password='a b'`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace muster::launch {

std::vector<std::string> redact_command(const std::vector<std::string>& argv);

// Whether an option named `name` (with its leading dashes, e.g. "--api-key") carries a credential.
bool is_secret_option(std::string_view name);

}  // namespace muster::launch
