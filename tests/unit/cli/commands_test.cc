// The command line's own logic: the exit code each kind of error becomes (README.md "Exit codes") and the
// subcommand table that man pages, completions and config keys are read from.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "cli/command.h"
#include "cli/command_tree.h"
#include "cli/exit_codes.h"

namespace muster::cli {
namespace {

int code_of(ErrorKind kind) {
  testing::internal::CaptureStderr();
  int code = report_error(make_error(kind, "what went wrong"));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "muster: what went wrong\n");
  return code;
}

TEST(ExitCodes, EachKindOfErrorHasItsCode) {
  EXPECT_EQ(code_of(ErrorKind::usage), 2);
  EXPECT_EQ(code_of(ErrorKind::parse), 2);
  EXPECT_EQ(code_of(ErrorKind::unsupported), 3);
  EXPECT_EQ(code_of(ErrorKind::interrupted), 130);
  for (auto kind : {ErrorKind::io, ErrorKind::timeout, ErrorKind::unreachable, ErrorKind::protocol,
                    ErrorKind::remote, ErrorKind::internal}) {
    EXPECT_EQ(code_of(kind), 1) << error_kind_name(kind);
  }
}

TEST(CommandTable, NamesAreUniqueAndTheInternalOnesHidden) {
  std::set<std::string> names;
  for (const auto& command : all_commands()) {
    EXPECT_TRUE(names.insert(command.name).second) << command.name;
    EXPECT_NE(command.run, nullptr) << command.name;
    bool internal = std::string(command.summary).starts_with("internal:");
    EXPECT_EQ(command.hidden, internal) << command.name;
  }
  for (const char* name : {"launch", "plan", "doctor", "sync", "ps", "stack", "why", "init", "agent", "node"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
}

TEST(CommandTable, EveryListedCommandHandsItsAppOverUnderTheDescribingHook) {
  std::vector<std::string> missing;
  auto commands = describe_commands(&missing);
  EXPECT_TRUE(missing.empty()) << missing.front();
  size_t listed = 0;
  for (const auto& command : all_commands()) listed += !command.hidden;
  EXPECT_EQ(commands.size(), listed);
}

}  // namespace
}  // namespace muster::cli
