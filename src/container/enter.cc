#include "container/enter.h"

#include <fmt/format.h>

#include "container/agent_files.h"
#include "container/gpu_flags.h"
#include "container/node_probe.h"
#include "container/runtime_argv.h"
#include "posix/dir.h"
#include "posix/environment.h"
#include "posix/exec.h"
#include "posix/file.h"
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

std::vector<std::string> present_env(const std::vector<std::string>& names) {
  std::vector<std::string> present;
  auto env = posix::current_environment();
  for (const auto& name : names) {
    if (posix::find_variable(env, name)) present.push_back(name);
  }
  return present;
}

std::string outcome_text(const posix::CommandOutcome& outcome) {
  if (!outcome.started || outcome.timed_out) return outcome.error;
  std::string text = outcome.err.empty() ? outcome.out : outcome.err;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return fmt::format("{} ({})", text, posix::describe(outcome.status));
}

// The agent's files in one fresh local directory, under the names they have in the container.
Result<std::string> stage_agent_files(const AgentFiles& files) {
  std::string stage = "/tmp/.muster-stage-" + random_hex(12);
  auto tmp = posix::Dir::open("/tmp");
  if (!tmp) return tmp.error();
  if (auto made = tmp->make_dir(stage.substr(5), 0700); !made) return made.error();
  std::vector<std::pair<std::string, std::string>> copies = {{"muster", files.executable}, {"ld.so", files.loader}};
  copies.insert(copies.end(), files.libraries.begin(), files.libraries.end());
  for (const auto& [name, source] : copies) {
    auto bytes = posix::read_text_file(source);
    if (!bytes) return bytes.error();
    if (auto written = posix::write_file_atomic(stage + "/" + name, *bytes, 0755); !written) return written.error();
  }
  return stage;
}

void remove_stage(const std::string& stage) {
  auto dir = posix::Dir::open(stage);
  if (dir) {
    if (auto names = dir->names()) {
      for (const auto& name : *names) (void)dir->remove(name, false);
    }
  }
  if (auto tmp = posix::Dir::open("/tmp")) (void)tmp->remove(stage.substr(5), true);
}

// The directory in the running container that holds this build's agent, copied in unless a copy there already
// verifies (`muster agent --verify <build id>` run inside it).
Result<std::string> agent_in_existing(Runtime runtime, const ContainerSpec& spec, const AgentFiles& files) {
  auto self = transport::self_binary();
  if (!self) return self.error();
  std::string dir = existing_agent_dir(self->build_id);
  std::vector<std::string> verify = {runtime_name(runtime), "exec", spec.existing};
  auto command = agent_command(dir, {"--verify", self->build_id});
  verify.insert(verify.end(), command.begin(), command.end());
  if (posix::run_commands({verify}, kCommandTimeoutMs)[0].succeeded()) return dir;
  auto stage = stage_agent_files(files);
  if (!stage) return stage.error();
  auto copied = posix::run_commands(
      {{runtime_name(runtime), "cp", *stage + "/.", spec.existing + ":" + dir}}, kCommandTimeoutMs)[0];
  remove_stage(*stage);
  if (!copied.succeeded()) {
    return make_error(ErrorKind::remote, "cannot copy the agent into container {}: {}", spec.existing,
                      outcome_text(copied));
  }
  return dir;
}

}  // namespace

int enter_container(const ContainerSpec& spec, const std::vector<std::string>& agent_args) {
  auto runtime = installed_runtime(spec.runtime);
  if (!runtime) {
    fail(spec.runtime.empty() ? "neither podman nor docker is installed (not in PATH)"
                              : fmt::format("{} is not installed (not in PATH)", spec.runtime));
    return kExitNoRuntime;
  }
  auto files = this_agent_files();
  if (!files) return fail(files.error().message);
  auto env = present_env(spec.pass_env);
  std::vector<std::string> argv;
  if (!spec.existing.empty()) {
    auto dir = agent_in_existing(*runtime, spec, *files);
    if (!dir) return fail(dir.error().message);
    argv = exec_agent_argv(*runtime, spec, *dir, env, agent_args);
  } else {
    auto gpus = gpu_flags(*runtime, spec.gpus, gather_gpu_facts());
    if (!gpus) return fail(gpus.error().message);
    argv = run_agent_argv(*runtime, spec, *files, *gpus, env, agent_args);
  }
  return fail(posix::exec_program(argv).message);
}

}  // namespace muster::container
