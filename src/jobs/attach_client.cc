#include "jobs/attach_client.h"

#include <csignal>
#include <cstdlib>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "head/control_protocol.h"
#include "head/control_server.h"
#include "head/job_registry.h"
#include "logs/terminal_output.h"
#include "logs/terminal_view.h"
#include "posix/clock.h"
#include "posix/fd.h"
#include "posix/poller.h"
#include "posix/signals.h"
#include "posix/terminal.h"
#include "posix/unix_socket.h"

namespace muster::jobs {
namespace {

constexpr int kStdout = 1;
constexpr uint64_t kSocketToken = 1, kStdoutToken = 2;
constexpr size_t kMaxEventBytes = 4u << 20;  // one event line (a rank's line is at most 64 KiB, escaped)

class AttachSession {
 public:
  AttachSession(const head::JobRecord& job, const AttachOptions& options, posix::Fd socket, posix::Poller& poller)
      : job_(job), options_(options), socket_(std::move(socket)), poller_(poller) {}

  // The loop: until the job ends, the head goes away or drops this client, or the user detaches.
  Result<int> run();
  void drain();  // what the view still holds, blocking (stdout is back to blocking by then)

 private:
  Result<void> send(const nlohmann::json& request);
  Result<void> on_socket();
  Result<void> on_event(const nlohmann::json& event);
  Result<void> start_view(const nlohmann::json& hello);
  void notice(const std::string& text);
  void flush_stdout();
  bool on_signal();  // false: detach now

  const head::JobRecord& job_;
  const AttachOptions& options_;
  posix::Fd socket_;
  posix::Poller& poller_;
  std::unique_ptr<logs::TerminalView> view_;
  std::string in_;
  bool stdout_watched_ = false;
  int interrupts_ = 0;
  std::optional<int> result_;  // set when the session is over
};

Result<void> AttachSession::send(const nlohmann::json& request) {
  // A request is a few bytes on a fresh socket: it fits in the socket buffer at once.
  auto written = posix::write_some(socket_.get(), request.dump() + "\n");
  if (!written) return make_error(ErrorKind::unreachable, "job {}: its control socket closed", job_.job_id);
  return {};
}

Result<void> AttachSession::start_view(const nlohmann::json& hello) {
  if (!hello.value("ok", false)) {
    return make_error(ErrorKind::remote, "job {}: {}", job_.job_id, hello.value("error", "cannot attach"));
  }
  logs::PrefixLayout layout{hello.value("world_size", 1), hello.value("nodes", 1),
                            hello.value("max_local_world_size", 1), 0};
  auto prefix = logs::PrefixFormat::parse(hello.value("prefix", std::string(logs::PrefixFormat::kDefault)), layout);
  if (!prefix) return prefix.error();
  auto ranks = logs::RankFilter::parse(options_.ranks);
  if (!ranks) return ranks.error();
  if (auto fits = ranks->check_world_size(layout.world_size); !fits) return fits.error();
  logs::TerminalOptions view;
  view.is_tty = posix::is_terminal(kStdout);
  view.color = view.is_tty && std::getenv("NO_COLOR") == nullptr;
  view.prefix = *prefix;
  view.ranks = *ranks;
  view.log_dir = hello.value("run_dir", job_.run_dir);
  view_ = std::make_unique<logs::TerminalView>(std::move(view));
  notice(fmt::format("muster: attached to job {} ({} rank{} on {} node{}); Ctrl-C {}", job_.job_id,
                     layout.world_size, layout.world_size == 1 ? "" : "s", layout.node_count,
                     layout.node_count == 1 ? "" : "s",
                     options_.stop_on_interrupt ? "stops it (twice: kills its ranks)" : "detaches (the job goes on)"));
  return {};
}

logs::Source source_of(const nlohmann::json& event) {
  return logs::Source{event.value("r", 0), event.value("lr", 0), event.value("nr", 0), event.value("n", ""),
                      event.value("s", logs::kStdout)};
}

Result<void> AttachSession::on_event(const nlohmann::json& event) {
  if (!view_) return start_view(event);
  std::string kind = event.value("e", "");
  int64_t now = posix::monotonic_ms();
  if (kind == "line") {
    view_->line(source_of(event), event.value("t", ""));
  } else if (kind == "progress") {
    view_->progress(source_of(event), event.value("t", ""), now);
  } else if (kind == "eos") {
    view_->end_of_stream(source_of(event));
  } else if (kind == "notice") {
    view_->notice(event.value("t", ""));
  } else if (kind == "end") {
    view_->finish();
    result_ = event.value("code", 1);
  } else if (kind == "dropped") {
    view_->notice(event.value("t", ""));
    view_->finish();
    result_ = 1;
  }  // else: the reply to a stop request, or an event of a newer muster: nothing to show
  return {};
}

Result<void> AttachSession::on_socket() {
  char buffer[65536];
  for (int round = 0; round < 16 && !result_; ++round) {
    auto got = posix::read_some(socket_.get(), buffer);
    if (!got || got->eof) {
      auto now = head::find_job(job_.run_dir, true);  // the record as the head left it
      auto state = head::job_state(now ? *now : job_);
      return make_error(ErrorKind::unreachable, "job {}: its head closed the connection (the job: {})", job_.job_id,
                        head::job_state_name(state));
    }
    if (got->would_block) break;
    in_.append(buffer, got->bytes);
    size_t start = 0;
    for (size_t newline = in_.find('\n'); newline != std::string::npos && !result_; newline = in_.find('\n', start)) {
      auto event = nlohmann::json::parse(std::string_view(in_).substr(start, newline - start), nullptr, false);
      start = newline + 1;
      if (event.is_discarded() || !event.is_object()) {
        return make_error(ErrorKind::protocol, "job {}: its head sent something that is not JSON", job_.job_id);
      }
      if (auto handled = on_event(event); !handled) return handled;
    }
    in_.erase(0, start);
    if (in_.size() > kMaxEventBytes) {
      return make_error(ErrorKind::protocol, "job {}: its head sent a line of more than {} bytes", job_.job_id,
                        kMaxEventBytes);
    }
  }
  return {};
}

void AttachSession::notice(const std::string& text) {
  if (view_) view_->notice(text);
  flush_stdout();
}

void AttachSession::flush_stdout() {
  if (!view_) return;
  bool want = logs::write_pending(*view_, kStdout);
  if (want == stdout_watched_) return;
  stdout_watched_ = want;
  if (want) (void)poller_.add(kStdout, posix::poll_writable, kStdoutToken);
  else (void)poller_.remove(kStdout);
}

bool AttachSession::on_signal() {
  if (!options_.stop_on_interrupt) return false;
  ++interrupts_;
  (void)send(head::encode_call(head::StopRequest{interrupts_ > 1}));
  return true;
}

Result<int> AttachSession::run() {
  if (auto sent = send(head::encode_call(head::AttachRequest{})); !sent) return sent.error();
  if (auto added = poller_.add(socket_.get(), posix::poll_readable, kSocketToken); !added) return added.error();
  while (!result_) {
    auto events = poller_.wait(1000);
    if (!events) return events.error();
    for (int signal : posix::take_pending_signals()) {
      if (signal == SIGCHLD || on_signal()) continue;
      notice(fmt::format("muster: detached from job {}; it goes on (muster attach {} | muster logs {} -f | "
                         "muster stop {})",
                         job_.job_id, job_.job_id, job_.job_id, job_.job_id));
      if (view_) view_->finish();
      return 0;
    }
    for (const auto& event : *events) {
      if (event.token != kSocketToken) continue;
      if (auto ok = on_socket(); !ok) {
        if (view_) view_->finish();
        return ok.error();
      }
    }
    if (view_) view_->tick(posix::monotonic_ms());
    flush_stdout();
  }
  return *result_;
}

void AttachSession::drain() {
  while (view_ && !view_->pending().empty()) {
    std::string bytes(view_->pending());
    if (!posix::write_all(kStdout, bytes)) return;
    view_->consumed(bytes.size());
  }
}

}  // namespace

Result<int> run_attach(const AttachOptions& options) {
  auto job = head::find_job(options.which);
  if (!job) return job.error();
  if (auto state = head::job_state(*job); state != head::JobState::running) {
    return make_error(ErrorKind::usage, "job {} is not running ({}): muster logs {} shows its output, muster why {} "
                                        "what happened", job->job_id, head::job_state_name(state), job->job_id,
                      job->job_id);
  }
  posix::SignalBlock signals;
  auto poller = posix::Poller::create();
  if (!poller) return poller.error();
  auto socket = head::connect_to_head(job->socket);
  if (!socket) return socket.error();
  AttachSession session(*job, options, std::move(*socket), *poller);
  Result<int> code = 0;
  {
    posix::NonBlockingScope nonblocking(kStdout);  // a slow terminal must not keep Ctrl-C from working
    code = session.run();
  }
  session.drain();
  return code;
}

}  // namespace muster::jobs
