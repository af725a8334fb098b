// `muster top [JOB]`: a running job's telemetry, live (docs/design/telemetry.md). Every second it asks the job's
// head for a `top` snapshot over the control socket (docs/control-protocol.md), attached and detached jobs alike,
// and draws it with telemetry/top_table.h on the terminal's alternate screen: a row per node, expandable to its
// ranks, stragglers marked, sortable, keys read raw. `--once` prints the table once (also when stdout is not a
// terminal); `--json` prints each snapshot as one JSON line (once with --once). One EventLoop: the socket, the
// keyboard, a one-second timer, SIGWINCH; the terminal is restored however it ends.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace muster::jobs {

struct TopOptions {
  std::string which;   // job id or run directory; empty: the newest running job
  bool once = false;
  bool json = false;
  std::vector<std::string> expand;  // nodes shown with their ranks from the start; "all": every node
  std::string sort;                 // a column's title or key to sort by (default: node)
  double interval_s = 1.0;
};

// 0 when the user quit or the job ended.
Result<int> run_top(const TopOptions& options);

}  // namespace muster::jobs
