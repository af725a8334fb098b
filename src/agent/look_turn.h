// take_turn: a look that many agents could make at once (old job state, gone agents' step directories), made at
// most every `every_ns` and by one process at a time. `stamp` is a file of the user's own: its mtime says when the
// last look began, its flock who is looking. Shared by run_state.h and step_files_dir.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "posix/fd.h"

namespace muster::agent {

// The stamp's descriptor, its lock held and its mtime set to `now_ns`, when this process should look now; nullopt
// when the last look began less than `every_ns` before `now_ns` (a stamp from the future does not count), another
// process holds the lock, or the stamp cannot be opened. The turn lasts as long as the descriptor.
std::optional<posix::Fd> take_turn(const std::string& stamp, int64_t now_ns, int64_t every_ns);

}  // namespace muster::agent
