// The size of /dev/shm for the container kinds, given once (`16g`) and written the way each reads it:
// docker compose's shm_size takes `16g` (1024-based, docker's RAMInBytes), Kubernetes' emptyDir sizeLimit
// a quantity `16Gi`. Accepted: a whole number with an optional k, m, g or t (any case), optionally followed
// by `i` and/or `b` (16g, 16G, 16gb, 16Gi, 16GiB); all 1024-based; no unit = bytes. Pure.
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace muster::container {

struct ShmSize {
  long long number = 0;
  char unit = 0;  // 'k', 'm', 'g', 't', or 0 for bytes

  std::string compose() const;     // "16g"
  std::string kubernetes() const;  // "16Gi"
};

Result<ShmSize> parse_shm_size(std::string_view text);

}  // namespace muster::container
