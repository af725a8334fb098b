#include "submit/job_follow.h"

#include <csignal>
#include <cstdio>
#include <fstream>

#include <fmt/core.h>

#include "cluster/slurm_job_status.h"
#include "posix/run_commands.h"
#include "posix/clock.h"
#include "posix/poller.h"
#include "posix/signals.h"

namespace muster::submit {
namespace {

using cluster::SlurmJobStatus;
using cluster::parse_scontrol_job;
using cluster::job_finished;
using cluster::job_exit_code;

constexpr int kRoundMs = 200;             // output copied this often
constexpr int64_t kPollMs = 1000;         // scontrol asked this often
constexpr int kSlurmCommandMs = 20'000;   // one scontrol/scancel
constexpr int kMaxQueryFailures = 10;     // scontrol failing this many times in a row: give up
constexpr int64_t kCancelWaitMs = 120'000;  // after scancel, how long to wait for the job to end

// Copies what was appended to the job's output file since the last call.
class OutputTail {
 public:
  explicit OutputTail(std::string path) : path_(std::move(path)) {}
  void copy_new() {
    if (!in_.is_open()) {
      in_.open(path_, std::ios::binary);
      if (!in_.is_open()) return;  // not created yet: the job has not started
    }
    in_.clear();
    char buffer[65536];
    while (in_.read(buffer, sizeof buffer) || in_.gcount() > 0) {
      std::fwrite(buffer, 1, static_cast<size_t>(in_.gcount()), stdout);
    }
    std::fflush(stdout);
  }

 private:
  std::string path_;
  std::ifstream in_;
};

Result<SlurmJobStatus> query(const std::string& job) {
  auto outcome = posix::run_commands({{"scontrol", "show", "job", "-o", job}}, kSlurmCommandMs).front();
  if (!outcome.succeeded()) {
    std::string why = outcome.err.empty() ? outcome.error : outcome.err;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return make_error(ErrorKind::remote, "scontrol show job {}: {}", job, why);
  }
  return parse_scontrol_job(outcome.out);
}

void note_state(const std::string& job, const SlurmJobStatus& status) {
  if (status.state == "PENDING") {
    fmt::print(stderr, "muster: job {} is pending ({})\n", job, status.reason);
  } else if (status.state == "RUNNING") {
    fmt::print(stderr, "muster: job {} is running on {}\n", job, status.nodes);
  } else if (job_finished(status)) {
    fmt::print(stderr, "muster: job {} {} (exit code {}:{})\n", job, status.state, status.exit_code, status.signal);
  }
}

void cancel(const std::string& job) {
  fmt::print(stderr, "\nmuster: cancelling job {} (scancel; Ctrl-C again to stop waiting)\n", job);
  auto outcome = posix::run_commands({{"scancel", job}}, kSlurmCommandMs).front();
  if (!outcome.succeeded()) fmt::print(stderr, "muster: scancel {} failed: {}{}\n", job, outcome.error, outcome.err);
}

}  // namespace

Result<int> follow_job(const std::string& job, const std::string& output_path) {
  posix::SignalBlock signals;
  auto poller = posix::Poller::create();
  if (!poller) return poller.error();
  OutputTail tail(output_path);
  std::string last_state;
  int failures = 0;
  int64_t next_poll = 0, cancelled_at = -1;
  while (true) {
    if (auto waited = poller->wait(kRoundMs); !waited) return waited.error();
    for (int signal : posix::take_pending_signals()) {
      if (signal == SIGCHLD) continue;
      if (cancelled_at >= 0) return 130;  // the second Ctrl-C: stop waiting
      cancel(job);
      cancelled_at = posix::monotonic_ms();
    }
    tail.copy_new();
    int64_t now = posix::monotonic_ms();
    if (now < next_poll) continue;
    next_poll = now + kPollMs;
    auto status = query(job);
    if (!status) {
      if (++failures < kMaxQueryFailures) continue;
      return make_error(ErrorKind::remote, "{} (job {} no longer known? its output: {})", status.error().message,
                        job, output_path);
    }
    failures = 0;
    if (status->state != last_state) note_state(job, *status);
    last_state = status->state;
    if (job_finished(*status)) {
      tail.copy_new();  // what the job wrote last
      return cancelled_at >= 0 ? 130 : job_exit_code(*status);
    }
    if (cancelled_at >= 0 && now - cancelled_at > kCancelWaitMs) {
      fmt::print(stderr, "muster: job {} is still {} {} s after scancel; not waiting any longer\n", job,
                 status->state, kCancelWaitMs / 1000);
      return 130;
    }
  }
}

}  // namespace muster::submit
