#include "posix/run_commands.h"

#include <algorithm>
#include <csignal>
#include <optional>

#include <fmt/format.h>

#include "posix/clock.h"
#include "posix/pipe.h"
#include "posix/poller.h"
#include "posix/process.h"

namespace muster::posix {
namespace {

struct Running {
  Process process;
  Fd out, err;  // our read ends; reset at EOF
};

// Starts one command with its stdout and stderr on fresh pipes; the outcome records a failure to start.
std::optional<Running> start(const std::vector<std::string>& argv, CommandOutcome& outcome) {
  auto out = make_pipe();
  auto err = make_pipe();
  if (!out || !err) {
    outcome.error = !out ? out.error().message : err.error().message;
    return std::nullopt;
  }
  SpawnOptions options;
  options.argv = argv;
  options.stdout_fd = out->write.get();
  options.stderr_fd = err->write.get();
  auto process = spawn(options);
  if (!process) {
    outcome.error = process.error().message;
    return std::nullopt;
  }
  outcome.started = true;
  if (!set_nonblocking(out->read.get()) || !set_nonblocking(err->read.get())) {
    outcome.error = "cannot make a pipe non-blocking";
  }
  return Running{std::move(*process), std::move(out->read), std::move(err->read)};
}

// Reads what is available on `fd` into `text`; closes it (after removing it from the poller) at EOF or error.
void drain(Poller& poller, Fd& fd, std::string& text) {
  char buffer[16384];
  while (fd.valid()) {
    auto got = read_some(fd.get(), buffer);
    if (got && got->would_block) return;
    if (got && !got->eof) {
      text.append(buffer, got->bytes);
      continue;
    }
    (void)poller.remove(fd.get());
    fd.reset();
  }
}

}  // namespace

std::vector<CommandOutcome> run_commands(const std::vector<std::vector<std::string>>& commands, int timeout_ms) {
  std::vector<CommandOutcome> outcomes(commands.size());
  std::vector<std::optional<Running>> running(commands.size());
  auto poller = Poller::create();
  if (!poller) {
    for (auto& outcome : outcomes) outcome.error = poller.error().message;
    return outcomes;
  }
  int64_t deadline = monotonic_ms() + timeout_ms;
  int open = 0;
  for (size_t i = 0; i < commands.size(); ++i) {
    running[i] = start(commands[i], outcomes[i]);
    if (!running[i]) continue;
    (void)poller->add(running[i]->out.get(), poll_readable, 2 * i);
    (void)poller->add(running[i]->err.get(), poll_readable, 2 * i + 1);
    open += 2;
  }
  while (open > 0) {
    int timeout = timeout_until(deadline);
    auto events = poller->wait(timeout);
    if (!events) break;
    for (const auto& event : *events) {
      auto& child = *running[event.token / 2];
      auto& outcome = outcomes[event.token / 2];
      bool is_out = event.token % 2 == 0;
      Fd& fd = is_out ? child.out : child.err;
      bool was_open = fd.valid();
      drain(*poller, fd, is_out ? outcome.out : outcome.err);
      if (was_open && !fd.valid()) --open;
    }
    if (timeout == 0) break;
  }
  for (size_t i = 0; i < commands.size(); ++i) {
    if (!running[i]) continue;
    auto& child = *running[i];
    // Pipes closed does not mean exited: give the child what is left of the deadline to do so.
    while (!child.out.valid() && !child.err.valid() && !child.process.try_wait() && monotonic_ms() < deadline) {
      (void)poller->wait(std::min(timeout_until(deadline), 10));
    }
    if (child.out.valid() || child.err.valid() || !child.process.reaped()) {
      // Still running at the deadline: stop the whole group (shells and interpreters may have children).
      (void)child.process.signal(SIGKILL);
      outcomes[i].timed_out = true;
      outcomes[i].error = fmt::format("timed out after {} ms", timeout_ms);
    }
    outcomes[i].status = child.process.wait();
  }
  return outcomes;
}

std::string describe_failure(const CommandOutcome& outcome) {
  if (!outcome.started || outcome.timed_out) return outcome.error;
  std::string text = outcome.err.empty() ? outcome.out : outcome.err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return fmt::format("{} ({})", text, describe(outcome.status));
}

}  // namespace muster::posix
