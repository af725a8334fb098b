#include "cli/exit_codes.h"

#include <cstdio>

#include <fmt/core.h>

namespace muster::cli {

int report_error(const Error& error) {
  fmt::print(stderr, "muster: {}\n", error.message);
  switch (error.kind) {
    case ErrorKind::usage:
    case ErrorKind::parse:
      return kExitUsage;
    case ErrorKind::unsupported:
      return kExitUnsupported;
    case ErrorKind::interrupted:
      return kExitInterrupted;
    default:
      return kExitFailure;
  }
}

}  // namespace muster::cli
