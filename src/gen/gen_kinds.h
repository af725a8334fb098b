// The kinds of `muster gen` as data: what each renders, the shape of its output, and its own flags, declared once
// to a FlagVisitor (the CLI binds them to its parser: cli/cmd_gen.cc). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/rank_plan.h"
#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

// What a kind's flags fill: the options, and the flags that need more than a copy (finish_request).
struct GenRequest {
  GenOptions options;
  std::vector<std::string> addresses;  // --address NODE=IP
  std::string names;                   // --names: a hostlist
};

// What a kind declares its flags to, in the order they are listed. `names` as CLI11 takes them: the flag and its
// aliases, comma-separated ("--zero-stage,--deepspeed-stage").
class FlagVisitor {
 public:
  virtual ~FlagVisitor() = default;
  virtual void text(std::string& value, const char* names, const char* help) = 0;
  virtual void choice(std::string& value, const char* names, const char* help, std::vector<std::string> choices) = 0;
  // Repeatable; with a delimiter, one flag may also hold several values ("a,b").
  virtual void texts(std::vector<std::string>& value, const char* names, const char* help, char delimiter) = 0;
  virtual void number(int& value, const char* names, const char* help, int min, int max) = 0;
  virtual void real(double& value, const char* names, const char* help, double min, double max) = 0;
  virtual void flag(bool& value, const char* names, const char* help) = 0;
};

using Files = std::vector<GeneratedFile>;

struct GenKind {
  const char* name;
  const char* summary;
  const char* example;
  Result<Files> (*render)(const cluster::RankPlan&, const GenOptions&);
  void (*flags)(FlagVisitor&, GenRequest&);
  bool per_node;       // one file per node: -o names a directory, --node-rank picks one node's file
  bool yaml;           // several files on stdout are separated as YAML documents
  bool takes_command;  // the training command follows `--`
};

// Every kind, in the order `muster gen` lists them.
const std::vector<GenKind>& gen_kinds();
// nullptr when there is no kind of that name.
const GenKind* find_gen_kind(std::string_view name);

// What `muster gen` alone (or with --help) prints: the usage line and every kind with its summary.
std::string gen_kinds_usage();
// "muster gen: unknown kind 'X', did you mean 'Y'?\n\n" followed by the usage.
std::string unknown_gen_kind(std::string_view name);

// The options from the flags that needed more than a copy: the addresses (NODE=IP), the names (a hostlist), and
// the command line for the files' headers (`args`: the words after `muster gen`).
Result<void> finish_request(GenRequest& request, const std::vector<std::string>& args);

}  // namespace muster::gen
