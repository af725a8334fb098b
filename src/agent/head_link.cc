#include "agent/head_link.h"

#include <chrono>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/file.h"
#include "posix/pipe.h"

namespace muster::agent {
namespace {

constexpr int kStdin = 0;
constexpr int kStdout = 1;
// Messages are written to the head once per loop round, so the acks of many small files (and whatever comes up
// a relay chain) share a write and an ssh packet; a queue this large is written at once.
constexpr size_t kFlushAt = 256u << 10;
constexpr size_t kGrownPipeBytes = 1u << 20;

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

HeadLink::HeadLink(posix::EventLoop& loop, int heartbeat_ms, int heartbeat_timeout_ms, Callbacks callbacks)
    : loop_(loop),
      heartbeat_ms_(heartbeat_ms),
      heartbeat_timeout_ms_(heartbeat_timeout_ms),
      callbacks_(std::move(callbacks)),
      timer_(loop.timer([this](int64_t now) { on_timer(now); })),
      last_heard_ms_(posix::monotonic_ms()) {}

Result<void> HeadLink::open(std::string_view preamble) {
  (void)posix::set_nonblocking(kStdin);
  (void)posix::set_nonblocking(kStdout);
  auto watch = loop_.watch(kStdin, posix::poll_readable, [this](uint32_t) { on_readable(); });
  if (!watch) return make_error(ErrorKind::io, "cannot watch stdin: {}", watch.error().message);
  in_ = std::move(*watch);
  outbox_.append(preamble);
  timer_.arm(posix::monotonic_ms());  // the first heartbeat at once
  return {};
}

void HeadLink::send(const protocol::AgentMessage& message) { send_encoded(protocol::encode(message)); }

void HeadLink::send_encoded(std::string_view frame) {
  if (gone_) return;
  outbox_.append(frame);
  if (outbox_.size() >= kFlushAt) flush();
}

std::span<char> HeadLink::reserve(size_t bytes) { return outbox_.reserve_back(bytes); }

void HeadLink::commit(size_t bytes) {
  outbox_.commit_back(bytes);
  if (outbox_.size() >= kFlushAt) flush();
}

void HeadLink::on_readable() {
  for (int round = 0; round < 16 && !gone_; ++round) {
    auto got = posix::read_some(kStdin, frames_.reserve(64 * 1024));  // in place: sync data is not copied again
    if (!got || got->eof) {
      eof_ = true;
      in_.reset();
      return lost("the head closed the connection");
    }
    if (got->would_block) return;
    last_heard_ms_ = posix::monotonic_ms();
    frames_.commit(got->bytes);
    while (!gone_) {
      auto frame = frames_.next_view();
      if (!frame) return lost(frame.error().message);
      if (!*frame) break;
      if ((*frame)->type == static_cast<uint8_t>(protocol::Type::relay)) {
        auto view = protocol::decode_relay((*frame)->payload);
        if (!view) {
          send(protocol::AgentError{view.error().message});
          return lost("protocol error");
        }
        callbacks_.on_relay(*view);
        continue;
      }
      auto message = protocol::decode_head((*frame)->type, (*frame)->payload);
      if (!message) {
        send(protocol::AgentError{message.error().message});
        return lost("protocol error");
      }
      if (*message) callbacks_.on_message(**message);
    }
  }
}

void HeadLink::flush() {
  if (gone_) return;
  while (!outbox_.empty()) {
    auto written = posix::write_some(kStdout, outbox_.pending());
    if (!written) return lost("cannot write to the head");  // its side is closed: nobody to talk to
    if (written->would_block) {
      // The transport (sshd, srun) reads slower than we write: a larger pipe buffer, once, as for workers;
      // stdout that is not a pipe refuses, and stays as it is.
      if (!stdout_grown_) (void)posix::set_pipe_size(kStdout, kGrownPipeBytes);
      stdout_grown_ = true;
      break;
    }
    outbox_.consumed(written->bytes);
  }
  uint32_t want = outbox_.empty() ? 0 : posix::poll_writable;
  if (want && !out_.active()) {
    auto watch = loop_.watch(kStdout, want, [this](uint32_t) { on_writable(); });
    if (watch) out_ = std::move(*watch);
  } else if (!want) {
    out_.reset();
  }
  update_throttle();
}

void HeadLink::on_writable() { flush(); }

void HeadLink::update_throttle() {
  bool throttle = outbox_.size() > kOutboxHigh || (throttled_ && outbox_.size() > kOutboxLow);
  if (throttle == throttled_) return;
  throttled_ = throttle;
  if (callbacks_.on_throttle) callbacks_.on_throttle(throttle);
}

void HeadLink::on_timer(int64_t now) {
  if (gone_) return;
  if (!eof_ && now - last_heard_ms_ > heartbeat_timeout_ms_) on_readable();  // look once more before judging
  if (gone_) return;
  if (now - last_heard_ms_ > heartbeat_timeout_ms_) {
    return lost(fmt::format("no word from the head for {} ms", now - last_heard_ms_));
  }
  if (now >= next_heartbeat_ms_) {
    send(protocol::Heartbeat{heartbeat_seq_++, unix_ms()});
    next_heartbeat_ms_ = now + heartbeat_ms_;
  }
  timer_.arm(std::min(next_heartbeat_ms_, last_heard_ms_ + heartbeat_timeout_ms_ + 1));
}

void HeadLink::give_up(const std::string& why) { lost(why); }

void HeadLink::lost(const std::string& why) {
  if (gone_) return;
  gone_ = true;
  out_.reset();
  in_.reset();
  timer_.disarm();
  if (throttled_) {
    throttled_ = false;
    if (callbacks_.on_throttle) callbacks_.on_throttle(false);
  }
  if (callbacks_.on_lost) callbacks_.on_lost(why);
}

}  // namespace muster::agent
