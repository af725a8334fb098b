// One result of a check of `muster doctor`: what it found about one node (or the whole cluster) and what to do
// about it. Every check emits an `ok` finding when it passes, so the report shows what was checked; a warning
// or an error always carries a concrete fix (the command to run, the variable to set). Plain data, at the bottom
// so that doctor (which produces findings) and diagnosis (whose matcher reads them) share it without either
// linking the other.
#pragma once

#include <string>

namespace muster {

enum class Severity { ok, warning, error };

inline const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::ok:
      return "ok";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "error";
  }
  return "error";
}

struct Finding {
  Severity severity = Severity::ok;
  std::string check;  // "hostnames", "resolution", "loopback", "containers", "versions", "paths", "network",
                      // "infiniband", "shm", "memlock", "gpus", "clock"
  std::string node;   // the node as the user wrote it; empty = cluster-wide
  std::string message;  // what is wrong (or what was verified), with the values; may span lines
  std::string fix;      // the concrete command or setting; for an ok finding, what to use (may be empty)
};

}  // namespace muster
