// The failure catalogue: what muster knows about how training jobs fail, as data. Each entry says what it
// matches (output lines, the signal or exit code, what the node noted about the rank, what doctor found across
// the nodes), what happened, and what to do. The built-in entries are src/diagnosis/failures.toml (compiled
// into the binary); users add their own files (~/.config/muster/failures.toml, MUSTER_FAILURES, --failures):
// their entries come first and an entry with a built-in id replaces it. Loading validates everything (regexes
// compile, classes and placeholders are known) and names file, line and key on error.
#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace muster::diagnosis {

// How much an entry explains. A primary cause beats a network symptom (often the consequence of another rank's
// death), which beats a timeout (the last symptom of a stall), which beats a fallback (a generic explanation).
enum class FailureClass { primary = 0, secondary = 1, timeout = 2, fallback = 3 };

// Whose fault a matched failure is, for the restart policy (launch/restart_policy.h): the node's (a spare takes
// its place), the workload's (a retry fails the same way), or not known.
enum class FaultClass { unknown = 0, node = 1, workload = 2 };
const char* fault_class_name(FaultClass fault);

struct OutputPattern {
  std::string source;  // as written, for messages
  std::regex regex;
};

struct FailureEntry {
  std::string id;
  std::string title;
  FailureClass klass = FailureClass::primary;
  FaultClass fault = FaultClass::unknown;  // `fault = "node" | "workload" | "unknown"`
  // What must hold (every key the entry gives): any of `output` matches a line; the rank ended by one of
  // `signals` / with one of `exit_codes`; the node noted each of `notes` about it; doctor found each of `facts`
  // (a check id whose finding is a warning or error); `lost`: the rank's node was lost.
  std::vector<OutputPattern> output;
  std::vector<int> signals;
  std::vector<int> exit_codes;
  std::vector<std::string> notes;
  std::vector<std::string> facts;
  bool lost = false;
  // Ask every node whether this module imports (placeholders {missing_on} {present_on}); may use {1}...
  std::string check_module;
  bool needs_facts = false;  // the text or `facts` use doctor's findings: the head gathers them on a match
  std::string explain, fix, doc;
  std::string origin;  // "file:line" where the entry was defined
};

struct Catalogue {
  std::vector<FailureEntry> entries;  // in matching order: users' files first, then the built-in ones
};

// The placeholders entry texts may use, for validation and the catalogue's documentation.
const std::vector<std::string_view>& known_placeholders();

// Parses one catalogue file (TOML). `origin` names it in errors ("failures.toml", a path).
Result<std::vector<FailureEntry>> parse_catalogue(std::string_view text, const std::string& origin);

// The built-in catalogue text (src/diagnosis/failures.toml as compiled in).
std::string_view builtin_catalogue_text();

// The built-in entries with the users' files before them (files that do not exist are skipped; others must
// parse). An entry whose id is already defined earlier replaces the later one.
Result<Catalogue> load_catalogue(const std::vector<std::string>& user_files);

// The user catalogue files muster reads by default: $MUSTER_FAILURES (colon-separated), then
// $XDG_CONFIG_HOME/muster/failures.toml (or ~/.config/muster/failures.toml).
std::vector<std::string> default_user_catalogues();

// The catalogue a command matches with (`launch`, `why`): `given_files` (--failures, each must exist: a usage
// error names the one that does not) before the default user catalogues, before the built-in entries.
Result<Catalogue> load_catalogues(const std::vector<std::string>& given_files);

}  // namespace muster::diagnosis
