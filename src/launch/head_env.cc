#include "launch/head_env.h"

#include <map>

#include "posix/environment.h"
#include "posix/file.h"

namespace muster::launch {

Result<EnvList> head_environment(const EnvRequest& request) {
  std::map<std::string, std::string> head_env;
  for (const auto& text : posix::current_environment()) {
    auto eq = text.find('=');
    if (eq != std::string::npos) head_env[text.substr(0, eq)] = text.substr(eq + 1);
  }
  EnvPolicy policy;
  policy.set = request.set;
  policy.extra_prefixes = request.prefixes;
  policy.propagate_defaults = !request.no_default_env;
  for (const auto& path : request.files) {
    auto text = posix::read_text_file(path);
    if (!text) return text.error();
    policy.files.push_back({path, *text});
  }
  return propagated_env(head_env, policy);
}

}  // namespace muster::launch
