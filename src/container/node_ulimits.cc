#include "container/node_ulimits.h"

#include "container/runtime_argv.h"
#include "posix/limits.h"
#include <algorithm>
#include <limits>

namespace muster::container {
namespace {

int64_t as_ulimit(uint64_t value) {
  return value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? -1 : static_cast<int64_t>(value);
}

void add_unless_asked(std::vector<Ulimit>& limits, const char* name, uint64_t soft, uint64_t hard) {
  if (soft == 0 || hard == 0) return;
  if (std::any_of(limits.begin(), limits.end(), [&](const Ulimit& u) { return u.name == name; })) return;
  limits.push_back({name, as_ulimit(soft), as_ulimit(hard)});
}

}  // namespace

std::vector<Ulimit> ulimits_for_node(std::vector<Ulimit> asked, Runtime runtime, const NodeLimits& node,
                                     bool always) {
  if (runtime != Runtime::podman || (asked.empty() && !always)) return asked;
  add_unless_asked(asked, "nofile", node.nofile_soft, node.nofile_hard);
  add_unless_asked(asked, "nproc", node.nproc_soft, node.nproc_hard);
  return asked;
}

NodeLimits this_node_limits() {
  auto files = posix::child_open_file_limit();
  auto procs = posix::child_process_limit();
  return {files.soft, files.hard, procs.soft, procs.hard};
}

std::vector<std::string> probe_argv(Runtime runtime, std::string_view image, const std::string& program,
                                    const std::vector<std::string>& args) {
  return probe_argv(runtime, image, program, args, this_node_limits());
}

}  // namespace muster::container
