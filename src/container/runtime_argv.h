// The container runtime's command lines, built in one place for podman and docker (the same code path; only the
// flags that differ are chosen here). Pure: the node-side decisions (which runtime, which GPU flags, where the
// agent's files are) come in as values, so every argv is unit-tested.
//
// A job's container (run_agent_argv) is started so that muster's guarantees hold inside it as on bare metal:
//   - the agent is the container's main process (under the runtime's --init, which reaps and forwards
//     signals), reading its frames from the container's stdin: -i, and with podman `--log-driver passthrough`,
//     which hands the container the transport's own pipes (no copy through conmon, nothing logged to disk;
//     docker: `--log-driver none`, the bytes go through dockerd's attach stream);
//   - when the head goes away the agent sees EOF and tears down, as on bare metal; when the agent ends, the
//     container's init ends and the kernel kills whatever is left in its PID namespace; `--rm` removes it;
//   - named after the job and labelled muster.job=<id>, host network and IPC (settings.h), `--pull never`
//     (images come from `muster image push`; a missing one fails at once instead of retrying a registry).
// The agent runs with the node's own dynamic loader and libc mounted next to it (agent_files.h), so it needs
// nothing from the image: any glibc, or none.
#pragma once

#include <string>
#include <vector>

#include "container/node_ulimits.h"
#include "container/spec.h"

namespace muster::container {

// Where the agent's files are inside a new container (a read-only mount) and inside an existing one (copied, into
// a fresh directory for every start: /tmp/.muster-<build id>-<random>, made by the copy from a private one, 0700;
// never a fixed path another process in the container could make first or swap files in).
inline constexpr std::string_view kAgentDirInContainer = "/run/muster";
std::string existing_agent_dir(std::string_view build_id, std::string_view random);

// The agent's files on the node: the executable and the loader and libraries it runs with. In the container
// they all sit in one directory under fixed names (file name -> node path).
struct AgentFiles {
  std::string executable;                                   // node path of muster
  std::string loader;                                       // node path of ld-linux*.so
  std::vector<std::pair<std::string, std::string>> libraries;  // soname (libc.so.6) -> node path
};

// `<dir>/ld.so --library-path <dir> <dir>/muster agent <agent_args>`: the agent inside the container, run
// with the node's loader and libc (never the image's).
std::vector<std::string> agent_command(std::string_view dir, const std::vector<std::string>& agent_args);

// The names of `wanted` (ContainerSpec::pass_env: names, or "PREFIX*") that `environment` (K=V entries) sets, in
// the order of `environment` for prefixes.
std::vector<std::string> env_names_to_pass(const std::vector<std::string>& wanted,
                                           const std::vector<std::string>& environment);

// `<runtime> run --rm -i --init ... IMAGE <agent_command>` (see the file comment). `gpu_flags` come from
// gpu_flags(); `env` are the names of spec.pass_env that the node's environment holds. `stdio_is_tty`: the
// agent's stdio include a terminal (srun --unbuffered gives the task's stdout a pty), which podman's passthrough
// driver refuses; podman then attaches through conmon with `--log-driver none` (still nothing written to disk).
std::vector<std::string> run_agent_argv(Runtime runtime, const ContainerSpec& spec, const AgentFiles& files,
                                        const std::vector<std::string>& gpu_flags,
                                        const std::vector<std::string>& env,
                                        const std::vector<std::string>& agent_args, bool stdio_is_tty = false);

// `<runtime> exec -i [-e NAME]... CONTAINER <agent_command in dir>`: the agent joins a running container.
std::vector<std::string> exec_agent_argv(Runtime runtime, const ContainerSpec& spec, std::string_view dir,
                                         const std::vector<std::string>& env,
                                         const std::vector<std::string>& agent_args);

// `<runtime> image inspect --format {{.Id}} IMAGE`: prints the image id (sha256:... with docker, bare hex
// with podman; see normalize_image_id) or fails when the image is not there.
std::vector<std::string> image_id_argv(Runtime runtime, std::string_view image);
// "sha256:6fb5..." and "6fb5..." are the same id: the bare 64 hex digits.
std::string normalize_image_id(std::string_view text);

// `<runtime> save --format docker-archive -o FILE IMAGE` (docker: `save -o FILE IMAGE`, always that format).
std::vector<std::string> save_argv(Runtime runtime, std::string_view image, std::string_view file);
// `<runtime> load -i FILE` (quiet where the runtime has it).
std::vector<std::string> load_argv(Runtime runtime, std::string_view file);
// `<runtime> tag ID IMAGE`: the loaded archive's name made `image` (a save of a name keeps it; of an id it
// does not).
std::vector<std::string> tag_argv(Runtime runtime, std::string_view id, std::string_view image);

// `<runtime> run --rm --pull never --network host [--ulimit nofile=... --ulimit nproc=...] --entrypoint PROGRAM
// IMAGE ARGS...`: a short probe inside the image (doctor's versions), with the image's entrypoint bypassed so that
// its banner cannot mix in; podman gets the node's own nofile and nproc (`node`: node_ulimits.h), which it would
// otherwise set to its own maximum, where runc may not.
std::vector<std::string> probe_argv(Runtime runtime, std::string_view image, const std::string& program,
                                    const std::vector<std::string>& args, const NodeLimits& node);
// The same on this node, with its limits (this_node_limits()): not pure.
std::vector<std::string> probe_argv(Runtime runtime, std::string_view image, const std::string& program,
                                    const std::vector<std::string>& args);

}  // namespace muster::container
