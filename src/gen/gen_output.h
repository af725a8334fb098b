// Where `muster gen` puts what a renderer made: stdout (several files separated as YAML documents or with
// `# ==> name <==` headers), one file (-o FILE), or a directory of files (-o DIR: per-node kinds, or whenever
// there are several files or -o names an existing directory). The one part of the gen layer that does I/O.
#pragma once

#include <string>
#include <vector>

#include "gen/gen_options.h"
#include "util/result.h"

namespace muster::gen {

struct OutputChoice {
  std::string output;    // -o: empty for stdout
  int node_rank = -1;    // --node-rank: only that node's file; -1 all
  bool per_node = false;  // the kind makes one file per node
  bool yaml = false;      // several files on stdout become YAML documents
};

// `files` narrowed to `choice.node_rank` (an error naming the plan's nodes when it has none of that node),
// then printed or written. Each written file is named on stderr.
Result<void> emit_generated(std::vector<GeneratedFile> files, const OutputChoice& choice, size_t nodes);

}  // namespace muster::gen
