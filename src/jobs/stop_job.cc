#include "jobs/stop_job.h"

#include <csignal>

#include <fmt/format.h>

#include "head/control_protocol.h"
#include "head/control_server.h"
#include "head/job_registry.h"
#include "posix/clock.h"
#include "posix/poller.h"
#include "posix/proc.h"

namespace muster::jobs {
namespace {

constexpr int kRequestTimeoutMs = 10'000;
constexpr int kPollMs = 100;

std::string ending(const head::JobRecord& job, head::JobState state) {
  if (state == head::JobState::head_died) {
    return "its head died (the nodes' agents stop its ranks when they lose it)";
  }
  if (!job.error.empty()) return "it never started: " + job.error;
  return fmt::format("exit {}", job.exit_code);
}

// Asks the head; false when its socket cannot be reached (the caller signals the head instead).
Result<bool> ask_head(const head::JobRecord& job, bool kill) {
  auto reply = head::control_request(job.socket, head::encode_call(head::StopRequest{kill}), kRequestTimeoutMs);
  if (!reply) {
    if (reply.error().kind == ErrorKind::unreachable) return false;
    return reply.error();
  }
  if (!reply->value("ok", false)) {
    return make_error(ErrorKind::remote, "job {}: {}", job.job_id, reply->value("error", "refused to stop"));
  }
  if (reply->value("killing", false)) {
    fmt::print(stderr, "muster: killing the ranks of job {} now\n", job.job_id);
  } else {
    fmt::print(stderr, "muster: stopping job {}: its ranks get SIGINT, SIGKILL after {} s (muster stop {} again: "
                       "at once)\n", job.job_id, reply->value("grace_s", 0.0), job.job_id);
  }
  return true;
}

// The head itself, as the user's Ctrl-C would reach it (twice for `kill`): only a muster of this user, started at
// the recorded time on this boot of this machine (head/job_registry.h is_own_head), never another process.
Result<void> signal_head(const head::JobRecord& job, bool kill) {
  if (!posix::process_alive(job.pid, job.pid_start)) return {};  // gone meanwhile
  if (!head::is_own_head(job)) {
    return make_error(ErrorKind::usage, "job {}: its control socket does not answer, and process {} is not its head "
                                        "(not a muster of yours started on this boot at the recorded time): nothing "
                                        "signalled", job.job_id, job.pid);
  }
  for (int round = 0; round < (kill ? 2 : 1); ++round) {
    if (auto sent = posix::signal_process(job.pid, SIGINT); !sent) return sent.error();
  }
  fmt::print(stderr, "muster: job {}: its control socket does not answer; sent SIGINT to its head (pid {})\n",
             job.job_id, job.pid);
  return {};
}

}  // namespace

Result<int> run_stop(const StopOptions& options) {
  auto job = head::find_job(options.which, !options.which.empty());
  if (!job) return job.error();
  auto state = head::job_state(*job);
  if (state != head::JobState::running) {
    fmt::print(stderr, "muster: job {} is not running: {}\n", job->job_id, ending(*job, state));
    return 0;
  }
  auto asked = ask_head(*job, options.kill);
  if (!asked) return asked.error();
  if (!*asked) {
    if (auto signalled = signal_head(*job, options.kill); !signalled) return signalled.error();
  }
  if (!options.wait) return 0;
  auto poller = posix::Poller::create();  // waits on nothing: the poll interval
  if (!poller) return poller.error();
  int64_t deadline = posix::monotonic_ms() + static_cast<int64_t>(options.timeout_s * 1000);
  while (true) {
    auto now = head::find_job(job->run_dir, true);
    if (!now) return now.error();
    state = head::job_state(*now);
    if (state != head::JobState::running) {
      fmt::print(stderr, "muster: job {} ended: {}\n", job->job_id, ending(*now, state));
      return 0;
    }
    if (posix::monotonic_ms() >= deadline) {
      return make_error(ErrorKind::timeout, "job {} is still running {} s after the stop (muster stop --kill {} kills "
                                            "its ranks at once)", job->job_id, options.timeout_s, job->job_id);
    }
    if (auto waited = poller->wait(kPollMs); !waited) return waited.error();
  }
}

}  // namespace muster::jobs
