// Internal to src/posix: a struct stat as the FileStat of dir.h.
#pragma once

#include <sys/stat.h>

#include "posix/dir.h"

namespace muster::posix {

FileStat file_stat_of(const struct stat& st);

}  // namespace muster::posix
