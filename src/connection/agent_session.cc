#include "connection/agent_session.h"

#include <fmt/core.h>

#include "posix/pipe.h"
#include "protocol/codec.h"
#include "transport/transport.h"

namespace muster::connection {
namespace {

constexpr size_t kMaxStderrKept = 64 * 1024;
constexpr size_t kDefaultPipeBytes = 64u << 10;  // Linux's pipe buffer unless grown
constexpr size_t kGrownPipeBytes = 1u << 20;

std::string last_lines(std::string_view text, size_t max_bytes) {
  if (text.size() > max_bytes) text = text.substr(text.size() - max_bytes);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  return std::string(text);
}

}  // namespace

AgentSession::AgentSession(std::string node, transport::AgentProcess process, const std::string& nonce,
                           const transport::SelfBinary* binary, int64_t now_ms)
    : node_(std::move(node)),
      process_(std::move(process)),
      binary_(binary),
      preamble_(nonce),
      started_ms_(now_ms),
      last_heard_ms_(now_ms) {
  for (const posix::Fd* fd : {&process_.to_agent, &process_.from_agent, &process_.agent_stderr}) {
    (void)posix::set_nonblocking(fd->get());  // the owner's loop must never block on one node
  }
}

void AgentSession::on_stdout_readable(int64_t now_ms) {
  // One buffer for every session: the loop that calls this is single-threaded, and what is read is consumed
  // (decoded or kept by the FrameReader) before the next read. 256 KiB reads from a grown pipe, at most 1 MiB per
  // event so the other nodes are served in turn.
  static char buffer[256 * 1024];
  for (int round = 0; round < 4 && state_ != State::closed; ++round) {
    // Frames are read in place into the frame reader (no copy of every byte); the preamble through `buffer`.
    bool framing = state_ != State::connecting;
    std::span<char> into = framing ? frames_.reserve(sizeof buffer) : std::span<char>(buffer);
    auto got = posix::read_some(stdout_fd(), into);
    if (!got) return close(fmt::format("reading from the agent: {}", got.error().message));
    if (got->eof)
      return close(state_ == State::connecting ? "the connection closed before the agent started"
                                               : "the agent's connection closed");
    if (got->would_block) return;
    last_heard_ms_ = now_ms;
    if (got->bytes >= kDefaultPipeBytes && !pipe_grown_) {
      // A full pipe: this agent streams (logs at full speed, sync acks of a chain). A larger pipe buffer lets its
      // transport write in larger pieces and wakes this loop less often; refused beyond the user's pipe budget.
      pipe_grown_ = true;
      (void)posix::set_pipe_size(stdout_fd(), kGrownPipeBytes);
    }
    if (framing) {
      frames_.commit(got->bytes);
      on_frames();
    } else {
      on_preamble_bytes(std::string_view(buffer, got->bytes));
    }
  }
}

void AgentSession::on_preamble_bytes(std::string_view bytes) {
  preamble_.feed(bytes);
  while (state_ == State::connecting) {
    auto event = preamble_.next();
    if (!event) return close(event.error().message);
    if (std::holds_alternative<protocol::PreambleNeedMore>(*event)) return;
    if (auto* upload = std::get_if<protocol::UploadRequest>(&*event)) {
      if (uploaded_ || !binary_ || upload->build_id != binary_->build_id || upload->size != binary_->size) {
        return close(
            fmt::format("unexpected upload request for build {} ({} bytes)", upload->build_id, upload->size));
      }
      auto bytes_to_send = transport::read_self_binary(*binary_);
      if (!bytes_to_send) return close(bytes_to_send.error().message);
      outbox_.append(*bytes_to_send);
      uploaded_ = true;
      flush();
      continue;
    }
    auto& found = std::get<protocol::PreambleFound>(*event);
    if (found.protocol != protocol::kProtocolVersion) {
      return close(fmt::format("the agent speaks protocol {}, this muster speaks {}", found.protocol,
                               protocol::kProtocolVersion));
    }
    state_ = State::ready;
    on_frame_bytes(found.rest);
  }
}

void AgentSession::on_frame_bytes(std::string_view bytes) {
  frames_.feed(bytes);
  on_frames();
}

void AgentSession::on_frames() {
  while (state_ != State::closed) {
    auto frame = frames_.next_view();  // decoded straight from the reader's buffer: one copy of Output bytes
    if (!frame) return close(frame.error().message);
    if (!*frame) return;
    auto message = protocol::decode_agent((*frame)->type, (*frame)->payload);
    if (!message) return close(message.error().message);
    if (!*message) continue;  // a type this version does not know: skipped, per spec
    if (auto* hello = std::get_if<protocol::Hello>(&**message)) {
      hello_ = *hello;
      have_hello_ = true;
    }
    inbox_.push_back(std::move(**message));
  }
}

void AgentSession::on_stderr_readable() {
  char buffer[16 * 1024];
  for (int round = 0; round < 4; ++round) {
    auto got = posix::read_some(stderr_fd(), buffer);
    if (!got || got->eof) {
      process_.agent_stderr.reset();
      return;
    }
    if (got->would_block) return;
    stderr_text_.append(buffer, got->bytes);
    if (stderr_text_.size() > kMaxStderrKept) stderr_text_.erase(0, stderr_text_.size() - kMaxStderrKept);
  }
}

void AgentSession::send(const protocol::HeadMessage& message) {
  if (state_ == State::closed) return;
  outbox_.append(protocol::encode(message));
  flush();
}

void AgentSession::send_frame(std::string_view frame) {
  if (state_ == State::closed) return;
  outbox_.append(frame);
  flush();
}

void AgentSession::queue_frame(std::string_view frame) {
  if (state_ == State::closed) return;
  outbox_.append(frame);
}

void AgentSession::on_stdin_writable() {
  flush();
}

void AgentSession::flush() {
  while (!outbox_.empty() && process_.to_agent.valid()) {
    auto written = posix::write_some(stdin_fd(), outbox_.pending());
    if (!written) return close(fmt::format("writing to the agent: {}", written.error().message));
    if (written->would_block) return;
    outbox_.consumed(written->bytes);
  }
}

std::deque<protocol::AgentMessage> AgentSession::take_messages() {
  return std::exchange(inbox_, {});
}

std::string AgentSession::diagnostics() const {
  std::string text;
  auto noise = last_lines(preamble_.noise(), 2048);
  auto err = last_lines(stderr_text_, 4096);
  if (!err.empty()) text += err;
  if (!noise.empty())
    text += (text.empty() ? "" : "\n") + std::string("output before the agent started: ") + noise;
  return text;
}

void AgentSession::close(const std::string& why) {
  if (state_ == State::closed) return;
  // A session on an ssh master ends with its control connection (the master then closes the agent's side); one
  // that never started may say why on it.
  std::string refusal = transport::end_failed_master_session(process_, state_ == State::connecting ? 200 : 0);
  if (!refusal.empty()) stderr_text_ += refusal + "\n";
  state_ = State::closed;
  failure_ = why;
  process_.to_agent.reset();
  process_.from_agent.reset();
}

void AgentSession::kill_transport(int signal) {
  if (!reaped_) transport::end_transport(process_, signal);
}

bool AgentSession::transport_reaped() {
  if (!reaped_ && transport::transport_ended(process_)) reaped_ = true;
  return reaped_;
}

int64_t AgentSession::connect_limit_ms(int connect_timeout_s) const {
  constexpr int64_t kAnsweredConnectMs = 60'000;
  int64_t silent = connect_timeout_s * 1000LL + 500;
  return heard_anything() ? std::max(kAnsweredConnectMs, silent) : silent;
}

std::optional<std::string> AgentSession::connect_overdue(int64_t now_ms, int connect_timeout_s) const {
  int64_t limit = connect_limit_ms(connect_timeout_s);
  if (have_hello_ || now_ms - started_ms_ <= limit) return std::nullopt;
  return fmt::format("no answer within {:.1f} s", limit / 1000.0);
}

std::optional<std::string> AgentSession::heartbeat_missing(int64_t now_ms, int heartbeat_timeout_ms) const {
  if (now_ms - last_heard_ms_ <= heartbeat_timeout_ms) return std::nullopt;
  return fmt::format("no heartbeat for {} ms", now_ms - last_heard_ms_);
}

transport::AgentTarget agent_target(std::string node, std::string destination, const std::string& nonce,
                                    int heartbeat_ms, int heartbeat_timeout_ms, bool virtual_node) {
  std::vector<std::string> args = {"--nonce", nonce, "--heartbeat-ms", std::to_string(heartbeat_ms),
                                   "--heartbeat-timeout-ms", std::to_string(heartbeat_timeout_ms)};
  if (virtual_node) args.insert(args.end(), {"--node-name", node});
  return transport::AgentTarget{std::move(node), std::move(destination), std::move(args)};
}

void SessionWatch::sync(posix::Poller& poller, const AgentSession& session, uint64_t out_token, uint64_t err_token,
                        uint64_t in_token) {
  auto one = [&](bool& registered, int fd, bool wanted, uint32_t events, uint64_t token) {
    if (fd < 0) {
      registered = false;  // closing the fd removed it from epoll
      return;
    }
    if (wanted == registered) return;
    registered = wanted;
    if (wanted) (void)poller.add(fd, events, token);
    else (void)poller.remove(fd);
  };
  one(out, session.stdout_fd(), !paused, posix::poll_readable, out_token);
  one(err, session.stderr_fd(), true, posix::poll_readable, err_token);
  one(in, session.stdin_fd(), session.wants_write(), posix::poll_writable, in_token);
}

}  // namespace muster::connection
