// The lines of a report that point to PyTorch's NCCL flight recorder dumps of a run (a collective's timeout on a
// GPU job, or a stall's stack round): those saved in the run directory (<run dir>/flight-recorder/, the notes
// "flight-recorder-saved") and those that stayed on their node, too large to bring (the notes "flight-recorder").
// One text for the launch's own report and for `muster why`, which reads the same notes from manifest.json.
#pragma once

#include "util/result.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace muster::launch {

inline constexpr std::string_view kFlightDumpDir = "flight-recorder";  // in the run directory
inline constexpr std::string_view kFlightDumpNote = "flight-recorder-dump:";  // + file name: a dump's bytes
                                                                               // (agent/worker_setup.h)

// A dump's bytes from a rank's node, into <run dir>/flight-recorder/ under torch's file name (nccl_trace_rank_<r>,
// made safe), where torch's fr_trace reads a whole job; returns its path relative to the run directory.
Result<std::string> save_flight_dump(const std::string& run_dir, const std::string& file_name, const std::string& bytes);

// `notes`: rank -> key -> text, as the ranks' nodes noted them; `node_of(rank)` names the rank's node. Empty when
// there is no dump.
std::string format_flight_dumps(const std::map<int, std::map<std::string, std::string>>& notes,
                                const std::function<std::string(int)>& node_of, const std::string& run_dir);

}  // namespace muster::launch
