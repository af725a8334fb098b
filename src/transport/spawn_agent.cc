#include "transport/spawn_agent.h"

#include "posix/pipe.h"

namespace muster::transport {

Result<AgentProcess> spawn_with_pipes(const std::vector<std::string>& argv, int parent_death_signal,
                                     bool new_session) {
  auto in = posix::make_pipe();
  if (!in) return in.error();
  auto out = posix::make_pipe();
  if (!out) return out.error();
  auto err = posix::make_pipe();
  if (!err) return err.error();
  posix::SpawnOptions options;
  options.argv = argv;
  options.stdin_fd = in->read.get();
  options.stdout_fd = out->write.get();
  options.stderr_fd = err->write.get();
  options.new_process_group = true;  // the terminal's Ctrl-C is the head's to handle, not ssh's
  options.parent_death_signal = parent_death_signal;
  options.new_session = new_session;
  auto process = posix::spawn(options);
  if (!process) return process.error();
  return AgentProcess{std::move(*process), std::move(in->write), std::move(out->read), std::move(err->read), {}};
}

}  // namespace muster::transport
