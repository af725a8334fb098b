// Private to src/posix: the signal mask that SignalBlock replaced, i.e. the one children start with and
// the one Poller::wait unblocks to. Without an active SignalBlock it is the calling thread's current mask.
// Other layers must not include this header (it exposes <signal.h>).
#pragma once

#include <signal.h>

namespace muster::posix::detail {

sigset_t original_signal_mask();

}  // namespace muster::posix::detail
