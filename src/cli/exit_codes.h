// Exit codes of the muster binary. Documented in README.md ("Exit codes"); keep both in sync.
// For `muster launch` the job's own exit code wins: the root-cause worker's code, or 128+signal.
#pragma once

#include "util/result.h"

namespace muster::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;      // a runtime failure: node unreachable, protocol error, checks failed
inline constexpr int kExitUsage = 2;        // bad command line or malformed input file
inline constexpr int kExitUnsupported = 3;  // the subcommand or feature is not built yet
inline constexpr int kExitInterrupted = 130;

// Prints `muster: <kind>: <message>` to stderr and returns the exit code for the error's kind.
int report_error(const Error& error);

}  // namespace muster::cli
