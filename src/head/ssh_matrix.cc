#include "head/ssh_matrix.h"

#include <algorithm>
#include <sstream>

#include "head/node_runs.h"

namespace muster::head {
namespace {

constexpr int kMatrixTimeoutMs = 60'000;

const char* const kScript =
    "for h; do if ssh -o BatchMode=yes -o ConnectTimeout=5 \"$h\" true </dev/null >/dev/null 2>&1; "
    "then echo \"ok $h\"; else echo \"fail $h\"; fi; done";

}  // namespace

Result<std::vector<SshPair>> failed_ssh_pairs(AgentPool& pool, const std::vector<std::string>& names) {
  auto runs = run_on_nodes(pool, [&](size_t node) {
    std::vector<std::string> argv = {"sh", "-c", kScript, "sh"};
    for (size_t j = 0; j < names.size(); ++j) {
      if (j != node) argv.push_back(names[j]);
    }
    return NodeCommand{argv, {}};
  }, kMatrixTimeoutMs);
  if (!runs) return runs.error();
  std::vector<SshPair> failed;
  for (size_t from = 0; from < runs->size(); ++from) {
    std::vector<std::string> ok;
    std::istringstream lines((*runs)[from].out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("ok ", 0) == 0) ok.push_back(line.substr(3));
    }
    for (size_t to = 0; to < names.size(); ++to) {
      if (to != from && std::find(ok.begin(), ok.end(), names[to]) == ok.end()) failed.push_back({from, to});
    }
  }
  return failed;
}

}  // namespace muster::head
