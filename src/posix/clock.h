// The monotonic clock, in milliseconds, for deadlines and poll timeouts. Never the wall clock: it does
// not jump when NTP or a user changes the time, and its zero is meaningless (compare, never print).
#pragma once

#include <cstdint>

namespace muster::posix {

// Milliseconds since an arbitrary fixed point (CLOCK_MONOTONIC).
int64_t monotonic_ms();

// A poll timeout that expires at `deadline_ms` (a monotonic_ms() value): 0 once it has passed, never
// negative (a negative timeout would mean "forever" to the Poller), at most INT32_MAX.
int timeout_until(int64_t deadline_ms);

// The wall clock (CLOCK_REALTIME) in nanoseconds since the epoch: only to compare with file times.
int64_t wall_clock_ns();

}  // namespace muster::posix
