#include "launch/detach.h"

#include <csignal>
#include <cstdio>
#include <optional>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "launch/launcher.h"
#include "launch/rank_log_files.h"
#include "posix/detach.h"
#include "posix/fd.h"
#include "posix/file.h"
#include "posix/pipe.h"
#include "posix/poller.h"
#include "posix/signals.h"
#include "util/random.h"
#include "util/run_dir.h"

namespace muster::launch {
namespace {

constexpr size_t kHeadLogShown = 64 * 1024;  // what the parent prints of head.log when the job ended early

// The head's end of the pipe: says one thing, once, then closes it (the parent reads the line, then EOF).
class StartReport {
 public:
  explicit StartReport(posix::Fd fd) : fd_(std::move(fd)) {}
  void send(const nlohmann::json& message) {
    if (!fd_.valid()) return;
    (void)posix::write_all(fd_.get(), message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    fd_.reset();
  }

 private:
  posix::Fd fd_;
};

ErrorKind error_kind_named(const std::string& name) {
  for (auto kind : {ErrorKind::usage, ErrorKind::parse, ErrorKind::io, ErrorKind::timeout, ErrorKind::unreachable,
                    ErrorKind::protocol, ErrorKind::remote, ErrorKind::unsupported, ErrorKind::interrupted}) {
    if (name == error_kind_name(kind)) return kind;
  }
  return ErrorKind::internal;
}

// In the background: the job, with what the parent waits for sent as soon as it is known.
Result<int> run_in_background(const LaunchOptions& options, posix::Fd pipe) {
  StartReport report(std::move(pipe));
  LaunchHooks hooks;
  hooks.on_running = [&report](const std::string& job_id, const std::string& run_dir) {
    report.send({{"running", true}, {"job_id", job_id}, {"run_dir", run_dir}});
  };
  auto code = run_launch(options, hooks);
  if (!code) {
    report.send({{"error", code.error().message}, {"kind", error_kind_name(code.error().kind)}});
  } else {
    report.send({{"ended", *code}});
  }
  return code;
}

struct HeadReport {
  std::string text;          // the head's line, if any
  bool interrupted = false;  // the user stopped the start (the head has ended since)
};

// The parent: the head's one line (or EOF), passing Ctrl-C on to the head meanwhile.
Result<HeadReport> wait_for_report(posix::Process& head, int pipe) {
  posix::SignalBlock signals;
  auto poller = posix::Poller::create();
  if (!poller) return poller.error();
  if (auto added = poller->add(pipe, posix::poll_readable, 0); !added) return added.error();
  std::string in;
  int interrupts = 0;
  while (true) {
    auto events = poller->wait(-1);  // the head's own timeouts bound this (connect, heartbeat, grace)
    if (!events) return events.error();
    for (int signal : posix::take_pending_signals()) {
      if (signal == SIGCHLD) continue;
      (void)head.signal(++interrupts == 1 ? SIGTERM : SIGKILL);
    }
    char buffer[4096];
    auto got = posix::read_some(pipe, buffer);
    if (!got) return got.error();
    if (got->eof) break;
    in.append(buffer, got->bytes);
  }
  if (interrupts > 0) head.wait();  // stopping: return once the head has torn the job down
  return HeadReport{in, interrupts > 0};
}

Result<int> wait_for_start(posix::Process& head, int pipe, const std::string& run_dir, bool quiet) {
  std::string head_log = run_dir + "/head.log";
  auto report = wait_for_report(head, pipe);
  if (!report) return report.error();
  auto line = nlohmann::json::parse(report->text, nullptr, false);
  if (line.is_discarded() || !line.is_object()) {
    auto status = head.wait();
    return make_error(ErrorKind::internal, "the job's background head ended ({}) before the job started; see {}",
                      posix::describe(status), head_log);
  }
  if (line.contains("running")) {
    std::string job_id = line.value("job_id", "");
    fmt::print("{}\n", job_id);
    std::fflush(stdout);
    if (!quiet) {
      fmt::print(stderr,
                 "muster: job {} runs in the background (logs in {}): muster attach {} | muster logs {} -f | "
                 "muster stop {}\n",
                 job_id, line.value("run_dir", run_dir), job_id, job_id, job_id);
    }
    return report->interrupted ? 128 + SIGINT : 0;  // interrupted while it started: it is stopped now
  }
  head.wait();
  if (line.contains("error")) return Error{error_kind_named(line.value("kind", "")), line.value("error", "")};
  int code = line.value("ended", 1);
  if (auto shown = posix::read_file_tail(head_log, kHeadLogShown)) fmt::print(stderr, "{}", *shown);
  fmt::print(stderr, "muster: the job ended before all its ranks started (exit {}); its head's output: {}\n", code,
             head_log);
  return code;
}

}  // namespace

Result<int> run_detached(LaunchOptions options) {
  if (options.job_id.empty()) options.job_id = new_job_id();
  std::string run_dir = job_run_dir(options.run_dir, options.job_id);
  if (auto made = make_run_dir(run_dir); !made) return made.error();
  auto log = posix::open_append(run_dir + "/head.log", false, kRunFileMode);
  if (!log) return make_error(ErrorKind::io, "cannot create {}/head.log: {}", run_dir, log.error().message);
  auto pipe = posix::make_pipe();
  if (!pipe) return pipe.error();
  options.detached = true;
  options.is_tty = false;
  options.color = false;
  std::fflush(stdout);  // nothing buffered may be written twice (by both processes)
  std::fflush(stderr);
  auto forked = posix::fork_detached(log->get(), {log->get(), pipe->read.get(), pipe->write.get()});
  if (!forked) return forked.error();
  if (!*forked) {  // the background head
    log->reset();
    pipe->read.reset();
    return run_in_background(options, std::move(pipe->write));
  }
  log->reset();
  pipe->write.reset();
  return wait_for_start(**forked, pipe->read.get(), run_dir, options.quiet);
}

}  // namespace muster::launch
