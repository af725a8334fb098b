#include "jobs/top_client.h"

#include <csignal>
#include <cstdlib>
#include <ctime>
#include <optional>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "head/control_protocol.h"
#include "head/job_registry.h"
#include "posix/clock.h"
#include "posix/event_loop.h"
#include "posix/fd.h"
#include "posix/signals.h"
#include "posix/terminal.h"
#include "posix/unix_socket.h"
#include "telemetry/top_table.h"

namespace muster::jobs {
namespace {

constexpr int kStdin = 0, kStdout = 1;
constexpr size_t kMaxReply = 64u << 20;

std::string clock_now() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof text, "%H:%M:%S", &local);
  return text;
}

// The terminal as top uses it: the alternate screen, no cursor, keys raw; all of it undone on destruction.
class Screen {
 public:
  Screen() : raw_(kStdin) { (void)posix::write_all(kStdout, "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"); }
  ~Screen() { (void)posix::write_all(kStdout, "\x1b[?25h\x1b[?1049l"); }
  Screen(const Screen&) = delete;
  Screen& operator=(const Screen&) = delete;

 private:
  posix::RawInput raw_;
};

class TopSession {
 public:
  TopSession(const head::JobRecord& job, const TopOptions& options, posix::Fd socket, posix::EventLoop& loop)
      : job_(job), options_(options), socket_(std::move(socket)), loop_(loop) {}
  Result<int> run();

 private:
  bool interactive() const { return !options_.once && !options_.json && posix::is_terminal(kStdout); }
  Result<void> ask();
  Result<void> on_socket();
  void on_reply(nlohmann::json reply);
  void on_keys();
  void draw();
  std::string key_name(std::string_view& input);

  const head::JobRecord& job_;
  const TopOptions& options_;
  posix::Fd socket_;
  posix::EventLoop& loop_;
  posix::EventLoop::FdWatch socket_watch_, keys_watch_;
  posix::EventLoop::Timer timer_;
  std::string in_, keys_;
  bool waiting_ = false;
  nlohmann::json snapshot_;
  telemetry::TopState state_;
  std::optional<Result<int>> result_;
};

Result<void> TopSession::ask() {
  head::TopRequest request;
  request.all_ranks = options_.json || state_.all_expanded ||
                      (!options_.expand.empty() && options_.expand.front() == "all");
  request.expand.assign(state_.expanded.begin(), state_.expanded.end());
  auto written = posix::write_all(socket_.get(), head::encode_call(request).dump() + "\n");
  if (!written) return make_error(ErrorKind::unreachable, "job {}: its control socket closed", job_.job_id);
  waiting_ = true;
  return {};
}

Result<void> TopSession::on_socket() {
  char buffer[65536];
  for (int round = 0; round < 256; ++round) {
    auto got = posix::read_some(socket_.get(), buffer);
    if (!got || got->eof) {
      result_ = 0;  // the job ended (its head closed the socket)
      if (!interactive() && !options_.json) fmt::print("job {} is over (muster why {})\n", job_.job_id, job_.job_id);
      return {};
    }
    if (got->would_block) break;
    in_.append(buffer, got->bytes);
    if (in_.size() > kMaxReply) return make_error(ErrorKind::protocol, "job {}: a reply over 64 MiB", job_.job_id);
  }
  size_t newline;
  while (!result_ && (newline = in_.find('\n')) != std::string::npos) {
    auto reply = nlohmann::json::parse(std::string_view(in_).substr(0, newline), nullptr, false);
    in_.erase(0, newline + 1);
    if (reply.is_discarded() || !reply.is_object()) {
      return make_error(ErrorKind::protocol, "job {}: its head sent something that is not JSON", job_.job_id);
    }
    if (!reply.value("ok", false)) {
      return make_error(ErrorKind::remote, "job {}: {}", job_.job_id, reply.value("error", std::string("?")));
    }
    on_reply(std::move(reply));
  }
  return {};
}

void TopSession::on_reply(nlohmann::json reply) {
  waiting_ = false;
  reply.erase("ok");
  snapshot_ = std::move(reply);
  if (options_.json) {
    fmt::print("{}\n", snapshot_.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    std::fflush(stdout);
    if (options_.once) result_ = 0;
    return;
  }
  draw();
  if (!interactive()) result_ = 0;
}

void TopSession::draw() {
  bool tty = interactive();
  auto size = tty ? posix::terminal_size(kStdout) : std::nullopt;
  telemetry::TopScreen screen;
  screen.width = size ? static_cast<size_t>(size->first) : 160;
  screen.height = size ? static_cast<size_t>(size->second) : 0;
  screen.color = tty && std::getenv("NO_COLOR") == nullptr;
  screen.cursor = tty;
  std::string title = fmt::format("muster top: job {}  attempt {}  {} ranks  {}{}", job_.job_id,
                                  snapshot_.value("attempt", 0) + 1, snapshot_.value("world_size", 0), clock_now(),
                                  snapshot_.value("running", false) ? "" : "  (ranks not running)");
  auto lines = telemetry::render_top(snapshot_, state_, screen, title);
  std::string out = tty ? "\x1b[H" : "";
  for (const auto& line : lines) out += line + (tty ? "\x1b[K\r\n" : "\n");
  if (tty) out += "\x1b[J";
  (void)posix::write_all(kStdout, out);
}

// One key from the front of `input` ("up", "enter", "q", ...), consumed; "" when an escape sequence is not whole.
std::string TopSession::key_name(std::string_view& input) {
  static const std::pair<std::string_view, const char*> kSequences[] = {
      {"\x1b[A", "up"},    {"\x1b[B", "down"},  {"\x1b[C", "right"}, {"\x1b[D", "left"}, {"\x1b[5~", "pgup"},
      {"\x1b[6~", "pgdn"}, {"\x1b[H", "home"},  {"\x1b[F", "end"},   {"\x1bOA", "up"},   {"\x1bOB", "down"},
      {"\x1bOC", "right"}, {"\x1bOD", "left"},
  };
  if (input[0] == '\x1b') {
    for (const auto& [sequence, name] : kSequences) {
      if (input.starts_with(sequence)) {
        input.remove_prefix(sequence.size());
        return name;
      }
    }
    if (input.size() < 3) return "";
    input.remove_prefix(1);
    return "esc";
  }
  char c = input[0];
  input.remove_prefix(1);
  if (c == '\r' || c == '\n') return "enter";
  if (c == 3) return "ctrl-c";
  return std::string(1, c);
}

void TopSession::on_keys() {
  char buffer[256];
  auto got = posix::read_some(kStdin, buffer);
  if (!got || got->eof) {
    keys_watch_.reset();
    return;
  }
  keys_.append(buffer, got->bytes);
  std::string_view input = keys_;
  size_t page = std::max<size_t>(1, posix::terminal_size(kStdout).value_or(std::make_pair(80, 24)).second - 8);
  while (!input.empty()) {
    std::string_view before = input;
    std::string key = key_name(input);
    if (key.empty()) {
      input = before;
      break;
    }
    if (!telemetry::top_key(state_, key, snapshot_, page)) {
      result_ = 0;
      return;
    }
  }
  keys_ = std::string(input);
  draw();
  if (!waiting_) (void)ask();  // an expanded node's ranks at once
}

Result<int> TopSession::run() {
  for (const auto& node : options_.expand) {
    if (node != "all") state_.expanded.insert(node);
  }
  if (!options_.expand.empty() && options_.expand.front() == "all") state_.all_expanded = true;
  if (!options_.sort.empty()) {
    const auto& columns = telemetry::top_columns();
    for (size_t i = 0; i < columns.size(); ++i) {
      if (options_.sort == columns[i].title || options_.sort == columns[i].key) {
        state_.sort = i;
        state_.descending = i != 0;
      }
    }
  }
  auto watch = loop_.watch(socket_.get(), posix::poll_readable, [this](uint32_t) {
    if (auto ok = on_socket(); !ok) result_ = ok.error();
  });
  if (!watch) return watch.error();
  socket_watch_ = std::move(*watch);
  int64_t every = static_cast<int64_t>(options_.interval_s * 1000);
  timer_ = loop_.timer([this, every](int64_t now) {
    timer_.arm(now + every);
    if (!waiting_) {
      if (auto ok = ask(); !ok) result_ = ok.error();
    }
  });
  if (auto ok = ask(); !ok) return ok.error();
  timer_.arm(posix::monotonic_ms() + every);
  std::optional<Screen> screen;
  if (interactive()) {
    screen.emplace();
    auto keys = loop_.watch(kStdin, posix::poll_readable, [this](uint32_t) { on_keys(); });
    if (keys) keys_watch_ = std::move(*keys);
  }
  while (!result_) {
    auto signals = loop_.run_once(-1);
    if (!signals) return signals.error();
    for (int signal : *signals) {
      if (signal == SIGWINCH) {
        if (interactive() && !snapshot_.is_null()) draw();
      } else if (signal != SIGCHLD) {
        result_ = 0;
      }
    }
  }
  return *result_;
}

}  // namespace

Result<int> run_top(const TopOptions& options) {
  auto job = head::find_job(options.which);
  if (!job) return job.error();
  if (auto state = head::job_state(*job); state != head::JobState::running) {
    return make_error(ErrorKind::usage, "job {} is not running ({}): muster report {} draws its telemetry, muster why "
                                        "{} names its stragglers", job->job_id, head::job_state_name(state),
                      job->job_id, job->job_id);
  }
  std::vector<int> taken = posix::SignalBlock::default_signals();
  taken.push_back(SIGWINCH);
  posix::SignalBlock signals(taken);
  auto loop = posix::EventLoop::create();
  if (!loop) return loop.error();
  auto socket = posix::connect_unix(job->socket);
  if (!socket) return socket.error();
  TopSession session(*job, options, std::move(*socket), **loop);
  return session.run();
}

}  // namespace muster::jobs
