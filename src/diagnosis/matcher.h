// Which catalogue entry explains a failed job, and the report's words for it. Pure: the head (or `muster why`)
// gathers the evidence — each failed rank's exit, its last output lines, its error file, what its node noted —
// and, when an entry asks for them, doctor's findings across the nodes and which nodes import a module.
//
// Every failed rank is matched (first entry in catalogue order whose conditions all hold); the diagnosis is the
// rank whose match explains most (class: primary > secondary > timeout > fallback), the gang's root cause
// among equals, then the earliest. Ranks matched by the same entry are named together, once.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnosis/catalogue.h"
#include "util/finding.h"

namespace muster::diagnosis {

struct RankFailure {
  enum class How { exited, signaled, failed_to_start, lost };
  int rank = 0;
  std::string node;
  How how = How::exited;
  int code = 0;           // exit code, or the signal number
  bool root = false;      // the gang's root cause
  int64_t ended_ms = 0;   // when the head learned of it (monotonic), for "earliest"
  std::vector<std::string> lines;  // the rank's last output lines, oldest first
  std::map<std::string, std::string> notes;  // what its node noted: "oom-kill" -> the kernel's line, ...
  std::string error_file;  // the JSON torch's @record wrote (TORCHELASTIC_ERROR_FILE), if any
};

struct ClusterFacts {
  bool gathered = false;                 // doctor's findings were gathered
  std::vector<Finding> findings;
  // check_module: module -> the nodes where it imports / does not.
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> modules;
  std::string python;   // the job's interpreter ({python})
  std::string run_dir;  // {run_dir}
};

struct Diagnosis {
  const FailureEntry* entry = nullptr;  // null: nothing matched (no failure, or an empty catalogue)
  int rank = -1;
  std::string node;
  std::string line;      // the output line that matched, if any
  std::string error;     // the exception from the error file, if any
  std::vector<int> ranks;           // every failed rank this entry matched, ascending
  std::vector<std::string> nodes;   // their nodes, each once
  std::vector<int> others;          // failed ranks explained otherwise (consequences, usually)
  std::string title, explain, fix, doc;  // placeholders expanded
};

// What the head must gather before matching again: doctor's findings, and modules to look for on every node.
struct EvidenceWanted {
  bool facts = false;
  std::vector<std::string> modules;
};
EvidenceWanted evidence_wanted(const Catalogue& catalogue, const std::vector<RankFailure>& failures);

Diagnosis diagnose(const Catalogue& catalogue, const std::vector<RankFailure>& failures, const ClusterFacts& facts);

// The exception line and traceback of torch's error file ({"message": {"message": ..., "extraInfo":
// {"py_callstack": ...}}}), as lines; empty when it does not parse.
std::vector<std::string> error_file_lines(const std::string& json);

// The report under the exit table, and the manifest's "diagnosis" object.
std::string format_diagnosis(const Diagnosis& diagnosis);
nlohmann::json diagnosis_json(const Diagnosis& diagnosis);  // an empty object when nothing matched

}  // namespace muster::diagnosis
