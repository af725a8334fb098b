#include "util/run_dir.h"

namespace muster {

std::string job_run_dir(const std::string& pattern, const std::string& job_id) {
  if (pattern.empty()) return "muster-runs/" + job_id;
  std::string dir = pattern;
  const std::string placeholder = "{job_id}";
  for (size_t at = dir.find(placeholder); at != std::string::npos; at = dir.find(placeholder, at + job_id.size())) {
    dir.replace(at, placeholder.size(), job_id);
  }
  return dir;
}

}  // namespace muster
