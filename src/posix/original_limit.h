// Private to src/posix: the soft RLIMIT_NOFILE that raise_open_file_limit() found, which spawn() gives back to
// every child. 0 when muster never raised its limit (children then inherit muster's own, unchanged).
#pragma once

#include <cstdint>

namespace muster::posix::detail {

uint64_t original_open_file_soft_limit();

}  // namespace muster::posix::detail
