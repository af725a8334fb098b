#include "container/runtime_argv.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace muster::container {

std::string existing_agent_dir(std::string_view build_id, std::string_view random) {
  return fmt::format("/tmp/.muster-{}-{}", build_id, random);
}

std::vector<std::string> agent_command(std::string_view dir, const std::vector<std::string>& agent_args) {
  std::string base(dir);
  std::vector<std::string> argv = {base + "/ld.so", "--library-path", base, base + "/muster", "agent"};
  argv.insert(argv.end(), agent_args.begin(), agent_args.end());
  return argv;
}

std::vector<std::string> env_names_to_pass(const std::vector<std::string>& wanted,
                                           const std::vector<std::string>& environment) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const auto& want : wanted) {
    bool prefix = want.ends_with('*');
    std::string stem = prefix ? want.substr(0, want.size() - 1) : want;
    for (const auto& entry : environment) {
      size_t eq = entry.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      std::string name = entry.substr(0, eq);
      if (prefix ? name.starts_with(stem) : name == stem) add(name);
    }
  }
  return names;
}

std::vector<std::string> run_agent_argv(Runtime runtime, const ContainerSpec& spec, const AgentFiles& files,
                                        const std::vector<std::string>& gpu_flags,
                                        const std::vector<std::string>& env,
                                        const std::vector<std::string>& agent_args, bool stdio_is_tty) {
  const std::string dir(kAgentDirInContainer);
  std::vector<std::string> argv = {runtime_name(runtime), "run", "--rm", "-i", "--init"};
  if (!spec.name.empty()) argv.insert(argv.end(), {"--name", spec.name});
  if (!spec.job_id.empty()) argv.insert(argv.end(), {"--label", "muster.job=" + spec.job_id});
  JobSettings settings = job_settings(spec.shm_size, spec.ulimits);  // the same as gen compose's (settings.h)
  argv.insert(argv.end(), {"--network", settings.network, "--ipc", settings.ipc});
  if (!settings.shm_size.empty()) argv.insert(argv.end(), {"--shm-size", settings.shm_size});
  argv.insert(argv.end(), {"--pull", spec.pull});
  // podman: the container gets the client's own stdin/stdout/stderr; docker has no such driver, and `none`
  // keeps dockerd from writing every byte of output to a json log file as well.
  bool passthrough = runtime == Runtime::podman && !stdio_is_tty;
  argv.insert(argv.end(), {"--log-driver", passthrough ? "passthrough" : "none"});
  for (const auto& limit : settings.ulimits) argv.insert(argv.end(), {"--ulimit", limit.flag_value()});
  argv.insert(argv.end(), gpu_flags.begin(), gpu_flags.end());
  for (const auto& mount : spec.mounts) {
    argv.insert(argv.end(), {"-v", mount.source + ":" + mount.target + (mount.read_only ? ":ro" : "")});
  }
  argv.insert(argv.end(), {"-v", files.executable + ":" + dir + "/muster:ro"});
  argv.insert(argv.end(), {"-v", files.loader + ":" + dir + "/ld.so:ro"});
  for (const auto& [name, path] : files.libraries) argv.insert(argv.end(), {"-v", path + ":" + dir + "/" + name + ":ro"});
  for (const auto& name : env) argv.insert(argv.end(), {"-e", name});
  argv.insert(argv.end(), spec.options.begin(), spec.options.end());
  argv.push_back(spec.image);
  auto command = agent_command(dir, agent_args);
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::string> exec_agent_argv(Runtime runtime, const ContainerSpec& spec, std::string_view dir,
                                         const std::vector<std::string>& env,
                                         const std::vector<std::string>& agent_args) {
  std::vector<std::string> argv = {runtime_name(runtime), "exec", "-i"};
  for (const auto& name : env) argv.insert(argv.end(), {"-e", name});
  argv.insert(argv.end(), spec.options.begin(), spec.options.end());
  argv.push_back(spec.existing);
  auto command = agent_command(dir, agent_args);
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::string> image_id_argv(Runtime runtime, std::string_view image) {
  return {runtime_name(runtime), "image", "inspect", "--format", "{{.Id}}", std::string(image)};
}

std::string normalize_image_id(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  if (text.starts_with("sha256:")) text.remove_prefix(7);
  return std::string(text);
}

std::vector<std::string> save_argv(Runtime runtime, std::string_view image, std::string_view file) {
  if (runtime == Runtime::docker) return {"docker", "save", "-o", std::string(file), std::string(image)};
  return {"podman", "save", "--quiet", "--format", "docker-archive", "-o", std::string(file), std::string(image)};
}

std::vector<std::string> load_argv(Runtime runtime, std::string_view file) {
  if (runtime == Runtime::docker) return {"docker", "load", "--quiet", "-i", std::string(file)};
  return {"podman", "load", "--quiet", "-i", std::string(file)};
}

std::vector<std::string> tag_argv(Runtime runtime, std::string_view id, std::string_view image) {
  return {runtime_name(runtime), "tag", std::string(id), std::string(image)};
}

std::vector<std::string> probe_argv(Runtime runtime, std::string_view image, const std::string& program,
                                    const std::vector<std::string>& args, const NodeLimits& node) {
  std::vector<std::string> argv = {runtime_name(runtime), "run", "--rm", "--pull", "never", "--network", "host"};
  for (const auto& limit : ulimits_for_node({}, runtime, node, true)) {
    argv.insert(argv.end(), {"--ulimit", limit.flag_value()});
  }
  argv.insert(argv.end(), {"--entrypoint", program, std::string(image)});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace muster::container
