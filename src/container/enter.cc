#include "container/enter.h"

#include <fmt/format.h>

#include "container/agent_files.h"
#include "container/gpu_flags.h"
#include "container/node_ulimits.h"
#include "container/node_probe.h"
#include "container/runtime_argv.h"
#include "posix/dir.h"
#include "posix/environment.h"
#include "posix/exec.h"
#include "posix/file.h"
#include "posix/private_dir.h"
#include "posix/run_commands.h"
#include "posix/socket.h"
#include "posix/terminal.h"
#include "transport/transport.h"
#include "util/random.h"

namespace muster::container {
namespace {

constexpr int kExitNoRuntime = 127;
constexpr int kExitFailed = 125;
constexpr int kCommandTimeoutMs = 60'000;

int fail(const std::string& message) {
  auto name = posix::hostname();
  std::string host = name ? *name : "this node";
  posix::write_stderr(fmt::format("muster agent on {}: {}\n", host, message));
  return kExitFailed;
}

using Staged = std::vector<std::pair<std::string, std::string>>;  // name in the container -> node path

Staged staged_names(const AgentFiles& files) {
  Staged names = {{"muster", files.executable}, {"ld.so", files.loader}};
  names.insert(names.end(), files.libraries.begin(), files.libraries.end());
  return names;
}

// A fresh directory of the user's own (~/.cache/muster/containers/<random>): the staging area of the copy into
// the container, and of the copy back out that checks it.
Result<std::string> fresh_private_dir() {
  auto base = posix::make_private_dir(posix::user_cache_dir(), "muster/containers");
  if (!base) return base.error();
  auto parent = posix::Dir::open(*base);
  if (!parent) return parent.error();
  std::string name = random_hex(12);
  if (auto made = parent->make_dir(name, 0700); !made) return made.error();
  return *base + "/" + name;
}

void remove_flat_dir(const std::string& path) {
  if (auto dir = posix::Dir::open(path)) {
    if (auto names = dir->names()) {
      for (const auto& name : *names) (void)dir->remove(name, false);
    }
  }
  size_t slash = path.rfind('/');
  if (auto parent = posix::Dir::open(path.substr(0, slash))) (void)parent->remove(path.substr(slash + 1), true);
}

// The agent's files in one fresh local directory, under the names they have in the container.
Result<std::string> stage_agent_files(const AgentFiles& files) {
  auto stage = fresh_private_dir();
  if (!stage) return stage.error();
  for (const auto& [name, source] : staged_names(files)) {
    auto bytes = posix::read_text_file(source);
    if (!bytes) return bytes.error();
    if (auto written = posix::write_file_atomic(*stage + "/" + name, *bytes, 0755); !written) return written.error();
  }
  return stage;
}

// Whether `dir` in the running container holds exactly the staged files: copied back out and compared byte for
// byte here (a copy cut short, or changed by the container's own processes, is never run; and a binary must not
// vouch for itself).
bool holds_agent(Runtime runtime, const ContainerSpec& spec, const std::string& dir, const std::string& stage,
                 const AgentFiles& files) {
  auto check = fresh_private_dir();
  if (!check) return false;
  std::string out = *check + "/copy";  // not there yet: `cp` creates it with the directory's content
  bool same = posix::run_commands({{runtime_name(runtime), "cp", spec.existing + ":" + dir, out}},
                                  kCommandTimeoutMs)[0]
                  .succeeded();
  for (const auto& [name, source] : staged_names(files)) {
    if (!same) break;
    auto want = posix::read_text_file(stage + "/" + name);
    auto got = posix::read_text_file(out + "/" + name);
    same = want && got && *want == *got;
  }
  remove_flat_dir(out);
  remove_flat_dir(*check);
  return same;
}

// A fresh directory in the running container holding this build's agent for this start alone: made by `cp` from
// the private stage (so 0700, like it; a random name, so no process in the container can have made it first),
// then copied back out and compared. The agent inside removes it once running (--staged-in: cmd_agent.cc), so
// starts leave nothing behind.
Result<std::string> agent_in_existing(Runtime runtime, const ContainerSpec& spec, const AgentFiles& files) {
  auto self = transport::self_binary();
  if (!self) return self.error();
  auto stage = stage_agent_files(files);
  if (!stage) return stage.error();
  std::string dir = existing_agent_dir(self->build_id, random_hex(16));
  auto copied = posix::run_commands({{runtime_name(runtime), "cp", *stage + "/.", spec.existing + ":" + dir}},
                                    kCommandTimeoutMs)[0];
  bool exact = copied.succeeded() && holds_agent(runtime, spec, dir, *stage, files);
  remove_flat_dir(*stage);
  if (!copied.succeeded()) {
    return make_error(ErrorKind::remote, "cannot copy the agent into container {}: {}", spec.existing,
                      posix::describe_failure(copied));
  }
  if (!exact) return make_error(ErrorKind::remote, "the agent copied into container {} differs from this one", spec.existing);
  return dir;
}

}  // namespace

void remove_staged_agent(const std::string& dir) {
  // Only a directory of the shape existing_agent_dir makes, directly in /tmp, never through a link.
  constexpr std::string_view kPrefix = "/tmp/.muster-";
  if (!dir.starts_with(kPrefix) || dir.find('/', kPrefix.size()) != std::string::npos) return;
  auto tmp = posix::Dir::open("/tmp");
  if (!tmp) return;
  std::string name = dir.substr(5);
  if (auto staged = tmp->open_dir(name)) {
    if (auto names = staged->names()) {
      for (const auto& file : *names) (void)staged->remove(file, false);
    }
  }
  (void)tmp->remove(name, true);
}

std::vector<std::string> inner_agent_args(const std::vector<std::string>& outer_args) {
  std::vector<std::string> inner;
  for (size_t i = 0; i < outer_args.size(); ++i) {
    if (outer_args[i] == "--container-spec") ++i;
    else if (!outer_args[i].starts_with("--container-spec=")) inner.push_back(outer_args[i]);
  }
  inner.push_back("--in-container");
  return inner;
}

int enter_container(const ContainerSpec& spec, const std::vector<std::string>& outer_args) {
  auto agent_args = inner_agent_args(outer_args);
  auto runtime = installed_runtime(spec.runtime);
  if (!runtime) {
    fail(spec.runtime.empty() ? "neither podman nor docker is installed (not in PATH)"
                              : fmt::format("{} is not installed (not in PATH)", spec.runtime));
    return kExitNoRuntime;
  }
  auto files = this_agent_files();
  if (!files) return fail(files.error().message);
  auto env = env_names_to_pass(spec.pass_env, posix::current_environment());
  std::vector<std::string> argv;
  if (!spec.existing.empty()) {
    auto dir = agent_in_existing(*runtime, spec, *files);
    if (!dir) return fail(dir.error().message);
    agent_args.insert(agent_args.end(), {"--staged-in", *dir});
    argv = exec_agent_argv(*runtime, spec, *dir, env, agent_args);
  } else {
    auto gpus = gpu_flags(*runtime, spec.gpus, gather_gpu_facts());
    if (!gpus) return fail(gpus.error().message);
    bool tty = posix::is_terminal(0) || posix::is_terminal(1) || posix::is_terminal(2);
    ContainerSpec limited = spec;  // the node's own nofile and nproc for podman (node_ulimits.h)
    limited.ulimits = ulimits_for_node(spec.ulimits, *runtime, this_node_limits());
    argv = run_agent_argv(*runtime, limited, *files, *gpus, env, agent_args, tty);
  }
  return fail(posix::exec_program(argv).message);
}

}  // namespace muster::container
