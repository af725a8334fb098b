// The environment the head hands to every node's processes: this process's environment through the policy of
// env_policy.h, with the --env-file files read. Shared by launch (launch_request.h) and exec, so both carry the
// same variables to the nodes.
#pragma once

#include <string>
#include <vector>

#include "launch/env_policy.h"
#include "util/result.h"

namespace muster::launch {

struct EnvRequest {
  std::vector<std::string> set;       // --env K=V | K
  std::vector<std::string> files;     // --env-file
  std::vector<std::string> prefixes;  // --env-prefix
  bool no_default_env = false;        // --no-default-env
};

Result<EnvList> head_environment(const EnvRequest& request);

}  // namespace muster::launch
