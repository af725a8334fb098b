// Which of the user's environment variables travel from the head (the machine muster runs on) to the
// workers, decided by an explicit policy the user can print (--print-env) instead of "whatever ssh carries".
// Pure: the caller passes the head's environment as a map and each --env-file as {name, text}; nothing here
// calls getenv or opens a file.
//
// Sources, lowest precedence first (a later source overrides an earlier one for the same name):
//   1. prefix allowlist: every head variable whose name starts with a default prefix (default_env_prefixes,
//      unless propagate_defaults is off) or an --env-prefix; names on the denylist (never_propagated) are
//      skipped, and so are names muster sets itself (muster_env_names, rank_env.h);
//   2. --env-file files, in the order given (see parse_env_file for the format);
//   3. --env, in the order given: `K=V` sets V verbatim, `K` copies the head's value of K.
// An explicit name (2, 3) may be anything, even a denylisted PATH or HOME: the user named it. It may not be
// a name muster sets (RANK, MASTER_PORT, ...): that is an error, not a silent override.
//
// Default prefixes and why (DeepSpeed's runner exports NCCL_ plus EXPORT_ENVS = MLFLOW, PYTHON, MV2, UCX; we
// keep those and add the families that tune the training stack and must agree across ranks):
//   NCCL_ GLOO_ UCX_ MV2_ FI_          communication libraries (FI_ = libfabric, AWS EFA's NCCL plugin)
//   CUDA_                              CUDA_LAUNCH_BLOCKING, CUDA_DEVICE_MAX_CONNECTIONS (Megatron), ...;
//                                      but not CUDA_VISIBLE_DEVICES (each node's own hardware: rank_env.h's
//                                      per_node_env decides it) nor CUDA_HOME/CUDA_PATH (install locations)
//   PYTHON                             PYTHONPATH, PYTHONUNBUFFERED, PYTHONHASHSEED, PYTHONFAULTHANDLER, ...
//   TORCH_ TORCHINDUCTOR_              PyTorch and its compiler (TORCHELASTIC_* is muster's own: not
//   included) HF_ TRANSFORMERS_ TOKENIZERS_ ACCELERATE_ DS_     Hugging Face, accelerate, DeepSpeed WANDB_
//   MLFLOW_                     experiment tracking OMP_ MKL_ KMP_                     CPU threading
//   (OMP_NUM_THREADS also feeds torchrun's rule, rank_env.h)
// Deliberately not propagated by default: LD_LIBRARY_PATH and LD_PRELOAD (node-specific install paths; a
// head's path can break a worker's CUDA/NCCL), and everything in never_propagated(). Use --env for those.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "launch/rank_env.h"
#include "util/result.h"
#include "util/shell_quote.h"  // format_env_listing quotes values; tests use it too

namespace muster::launch {

// One --env-file: the name it was given by (for errors: `name:line: ...`) and its contents.
struct EnvFile {
  std::string name;
  std::string text;
};

struct EnvPolicy {
  std::vector<std::string> set;             // --env K=V or --env K (copy K's value from the head)
  std::vector<EnvFile> files;               // --env-file, in command-line order
  std::vector<std::string> extra_prefixes;  // --env-prefix P: head variables named P* travel too
  bool propagate_defaults = true;           // false: no default prefixes, only what is listed explicitly
};

// The default allowlist of name prefixes, in the order above (for README and --help).
const std::vector<std::string_view>& default_env_prefixes();

// Names that a prefix never carries, even an --env-prefix: exact names, or prefixes when they end in '_'
// (SSH_, LC_, XDG_). PATH, HOME, USER, SHELL, PWD, TERM, DISPLAY, LANG, ... describe the head's session and
// machine, not the job; CUDA_VISIBLE_DEVICES, CUDA_HOME, CUDA_PATH describe the head's hardware/install.
const std::vector<std::string_view>& never_propagated();

// POSIX-portable environment variable name: [A-Za-z_][A-Za-z0-9_]*.
bool is_valid_env_name(std::string_view name);

// What travels, sorted by name. Errors (ErrorKind::usage, or parse with `file:line:` for --env-file):
// an invalid name, `--env K` / a bare `K` line for a K the head does not have, a name muster sets, a
// malformed --env-prefix, a malformed env-file line.
Result<EnvList> propagated_env(const std::map<std::string, std::string>& head_env, const EnvPolicy& policy);

// One env-file, like DeepSpeed's .deepspeed_env or a dotenv file, read as the shell would read a line of
// assignments, minus every expansion:
//   # comment, blank lines, CRLF line ends, a leading UTF-8 BOM
//   [export ]NAME=VALUE [# comment]
//   NAME                     copy the head's value (like `docker --env-file`)
// VALUE is one shell word: plain characters, `\x` (x literally), '...' (everything literal), "..." (where `\`
// escapes only \ " $ and `), concatenated; it may be empty. Refused, with `name:line:column`, instead of
// being passed on differently from what a shell would do: `$` and backquotes outside single quotes
// (muster does not expand variables: write the value out), an unquoted leading `~`, unquoted whitespace
// inside a value (quote it), unquoted ; & | < > ( ), an unterminated quote, an invalid name.
// Later lines override earlier ones. Bare `NAME` lines come back with `copy_from_head` set.
struct EnvFileEntry {
  std::string name;
  std::string value;
  int line = 0;
  bool copy_from_head = false;
};
Result<std::vector<EnvFileEntry>> parse_env_file(std::string_view text, std::string_view filename);

// Whether a variable probably holds a credential, judged by its name alone. The name is split into words at
// '_' and compared case-insensitively; it is secret when a word
//   - is TOKEN(S), KEY(S), PASS, PAT, or ends in TOKEN(S) (ACCESSTOKEN, HFTOKEN), or
//   - is a known compound ending in KEY: APIKEY ACCESSKEY PRIVATEKEY SECRETKEY SIGNINGKEY ENCRYPTIONKEY, or
//   - contains SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL.
// So HF_TOKEN, WANDB_API_KEY, AWS_SECRET_ACCESS_KEY, MLFLOW_TRACKING_PASSWORD, GOOGLE_APPLICATION_CREDENTIALS
// are secret, and TOKENIZERS_PARALLELISM, MONKEY, KEYBOARD, NCCL_IB_PKEY, SSH_AUTH_SOCK, PWD are not.
bool is_secret(std::string_view name);

// The value fit for logs, listings and manifests: "***" for a secret name; otherwise the value, with the
// password of any `scheme://user:password@host` URL in it replaced by *** (MLFLOW_TRACKING_URI, ...).
std::string redact(std::string_view name, std::string_view value);

// One block of --print-env: what every process of a node gets, then what differs per process.
struct EnvListing {
  std::string title;                                       // "node 0 (host-a)", printed as a # comment
  EnvList common;                                          // printed sorted
  std::vector<std::pair<std::string, EnvList>> processes;  // {"rank 0", its own variables}; may be empty
};

// Splits full per-process environments into what they share and what each adds or changes.
EnvListing make_env_listing(std::string title, const std::vector<std::pair<std::string, EnvList>>& processes);

// --print-env: per block a `# title` line and `NAME=value` lines (sorted, redacted, shell-quoted, so the
// output can be pasted into a shell or an env-file), then `# title, rank 0` sub-blocks; blank line between
// nodes.
std::string format_env_listing(const std::vector<EnvListing>& nodes);

}  // namespace muster::launch
