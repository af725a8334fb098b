#include "sync/data_inbound.h"

#include <algorithm>
#include <cstring>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/poller.h"
#include "posix/tcp_nonblocking.h"
#include "protocol/messages.h"
#include "sync/data_handshake.h"

namespace muster::sync {
namespace {

constexpr int kHandshakeMs = 2000;      // a connection must prove the secret within this
constexpr size_t kMaxPending = 32;      // connections in their handshake at once; more are refused
constexpr size_t kReadBuffer = 2u << 20;
constexpr size_t kMinRoom = 256u << 10;  // read when at least this much room is free
constexpr int kReadsPerEvent = 8;

uint32_t little_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

Result<std::unique_ptr<DataInbound>> DataInbound::listen(posix::EventLoop& loop, DataLinkParams params,
                                                         Callbacks callbacks) {
  std::unique_ptr<DataInbound> link(new DataInbound(loop, std::move(params), std::move(callbacks)));
  auto listener = posix::listen_tcp_any_port();
  if (!listener) return listener.error();
  auto port = posix::bound_port(listener->get());
  if (!port) return port.error();
  link->listener_ = std::move(*listener);
  link->port_ = *port;
  DataInbound* self = link.get();
  auto watch = loop.watch(self->listener_.get(), posix::poll_readable, [self](uint32_t) { self->on_accept(); });
  if (!watch) return watch.error();
  self->listen_watch_ = std::move(*watch);
  self->streams_.resize(self->params_.streams);  // never resized again: the watches point into it
  self->deadline_ms_ = posix::monotonic_ms() + self->params_.timeout_ms;
  self->timer_.arm(self->deadline_ms_);
  return link;
}

DataInbound::DataInbound(posix::EventLoop& loop, DataLinkParams params, Callbacks callbacks)
    : loop_(loop),
      params_(std::move(params)),
      callbacks_(std::move(callbacks)),
      timer_(loop.timer([this](int64_t now) { on_timer(now); })) {}

DataInbound::~DataInbound() { close(); }

void DataInbound::close() {
  closed_ = true;
  timer_.disarm();
  listen_watch_.reset();
  listener_.reset();
  drop_pending();
  for (auto& stream : streams_) {
    stream.watch.reset();
    stream.fd.reset();
  }
}

void DataInbound::drop_pending() {
  for (auto& pending : pending_) {
    pending->watch.reset();
    pending->fd.reset();
    pending->done = true;
  }
}

void DataInbound::fail(const std::string& why) {
  if (failed_ || closed_) return;
  failed_ = true;
  close();
  if (callbacks_.on_failed) callbacks_.on_failed(why);
}

void DataInbound::on_accept() {
  std::erase_if(pending_, [](const auto& p) { return p->done; });
  for (int round = 0; round < 16 && listener_.valid(); ++round) {
    std::string peer;
    auto accepted = posix::accept_nonblocking(listener_.get(), &peer);
    if (!accepted || !*accepted) return;
    auto pending = std::make_unique<Pending>();
    pending->fd = std::move(**accepted);
    pending->peer = peer;
    if (pending_.size() >= kMaxPending) {
      ++refused_;
      continue;  // closed as it goes out of scope
    }
    pending->deadline = posix::monotonic_ms() + kHandshakeMs;
    Pending* raw = pending.get();
    auto watch = loop_.watch(raw->fd.get(), posix::poll_readable, [this, raw](uint32_t events) { on_pending(*raw, events); });
    if (!watch) {
      ++refused_;
      continue;
    }
    raw->watch = std::move(*watch);
    pending_.push_back(std::move(pending));
    timer_.arm_earlier(raw->deadline);
  }
}

void DataInbound::refuse(Pending& pending) {
  ++refused_;
  pending.watch.reset();
  pending.fd.reset();
  pending.done = true;
}

// hello in -> challenge out -> proof in. Reads never go past what the handshake needs: records may follow.
void DataInbound::on_pending(Pending& pending, uint32_t) {
  if (pending.done || closed_) return;
  size_t want = (pending.hello.empty() ? kHelloBytes : kProofBytes) - pending.in.size();
  char buffer[kHelloBytes];
  auto got = posix::read_some(pending.fd.get(), std::span<char>(buffer, want));
  if (!got || got->eof) return refuse(pending);
  if (got->would_block) return;
  pending.in.append(buffer, got->bytes);
  if (pending.hello.empty()) {
    if (pending.in.size() < kHelloBytes) return;
    auto hello = decode_hello(pending.in);
    if (!hello || hello->session != params_.session || hello->cipher != params_.cipher ||
        hello->stream >= streams_.size() || streams_[hello->stream].fd.valid()) {
      return refuse(pending);
    }
    pending.hello = std::move(pending.in);
    pending.in.clear();
    pending.listener_nonce = random_bytes(kNonceBytes);
    pending.out = make_challenge(params_.secret, pending.hello, pending.listener_nonce);
    auto wrote = posix::write_some(pending.fd.get(), pending.out);  // 72 bytes into an empty socket buffer
    if (!wrote || wrote->bytes != pending.out.size()) return refuse(pending);
    return;
  }
  if (pending.in.size() < kProofBytes) return;
  if (!check_proof(params_.secret, pending.hello, pending.listener_nonce, pending.in)) return refuse(pending);
  auto hello = decode_hello(pending.hello);
  if (!hello || streams_[hello->stream].fd.valid()) return refuse(pending);
  admit(pending, hello->stream, stream_key(params_.secret, pending.hello, pending.listener_nonce));
}

void DataInbound::admit(Pending& pending, uint16_t index, std::string key) {
  auto opener = RecordOpener::create(params_.cipher, key);
  if (!opener) return fail(opener.error().message);
  Stream& stream = streams_[index];
  pending.watch.reset();
  stream.fd = std::move(pending.fd);
  pending.done = true;
  stream.opener = std::make_unique<RecordOpener>(std::move(*opener));
  stream.buffer.allocate(kReadBuffer);
  auto watch = loop_.watch(stream.fd.get(), posix::poll_readable, [this, index](uint32_t) { on_stream(index); });
  if (!watch) return fail(fmt::format("cannot watch a TCP socket: {}", watch.error().message));
  stream.watch = std::move(*watch);
  if (++admitted_ < streams_.size()) return;
  linked_ = true;
  listen_watch_.reset();  // every stream is in: nobody else gets to connect
  listener_.reset();
  for (auto& other : pending_) {
    if (!other->done) refuse(*other);
  }
  if (callbacks_.on_linked) callbacks_.on_linked();
}

void DataInbound::on_timer(int64_t now) {
  if (closed_) return;
  std::erase_if(pending_, [](const auto& p) { return p->done; });
  int64_t next = linked_ ? posix::EventLoop::kNever : deadline_ms_;
  for (auto& pending : pending_) {
    if (now >= pending->deadline) refuse(*pending);
    else next = std::min(next, pending->deadline);
  }
  if (!linked_ && now >= deadline_ms_) {
    return fail(fmt::format("no connection from the sending node within {:.0f} s", params_.timeout_ms / 1000.0));
  }
  if (next != posix::EventLoop::kNever) timer_.arm(next);
}

void DataInbound::on_stream(size_t index) {
  if (closed_) return;
  Stream& stream = streams_[index];
  for (int round = 0; round < kReadsPerEvent && stream.fd.valid(); ++round) {
    RawBytes& b = stream.buffer;
    if (b.capacity - b.size < kMinRoom) {
      // Make room: move the unread bytes to the front, or grow for a record larger than the buffer.
      size_t unread = b.size - stream.start;
      size_t need = kMinRoom + unread;
      if (unread >= kRecordHeader) need = std::max(need, kRecordHeader + record_size(b.data.get() + stream.start) + kTagBytes);
      if (need > b.capacity) {
        RawBytes bigger;
        bigger.allocate(need);
        std::memcpy(bigger.data.get(), b.data.get() + stream.start, unread);
        bigger.size = unread;
        b = std::move(bigger);
      } else {
        std::memmove(b.data.get(), b.data.get() + stream.start, unread);
        b.size = unread;
      }
      stream.start = 0;
    }
    auto got = posix::read_some(stream.fd.get(), std::span<char>(b.data.get() + b.size, b.capacity - b.size));
    if (!got) return fail(fmt::format("the data link broke: {}", got.error().message));
    if (got->would_block) break;
    if (got->eof) {
      stream.watch.reset();
      stream.fd.reset();
      stream.eof = true;  // judged in deliver(): its end record may still wait behind records of other streams
      deliver();
      return;
    }
    b.size += got->bytes;
    bytes_in_ += got->bytes;
    deliver();
    if (closed_) return;
  }
}

void DataInbound::deliver() {
  if (delivering_) return;
  delivering_ = true;
  for (bool progress = true; progress && !closed_;) {
    progress = false;
    for (auto& stream : streams_) {
      while (!closed_ && deliver_record(stream)) progress = true;
    }
  }
  delivering_ = false;
  if (closed_) return;
  for (auto& stream : streams_) {
    if (stream.eof && !stream.ended && !complete_record_waits(stream)) {
      return fail("the sending node closed the data link before its end (stopped, or the connection was cut)");
    }
    // A stream whose next record is complete but not the next one waits (no read) until it is.
    if (stream.watch.active()) (void)stream.watch.set_events(complete_record_waits(stream) ? 0 : posix::poll_readable);
  }
  if (!ended_ && linked_ && std::all_of(streams_.begin(), streams_.end(), [](const Stream& s) { return s.ended; })) {
    ended_ = true;
    if (callbacks_.on_end) callbacks_.on_end();
  }
}

bool DataInbound::complete_record_waits(const Stream& stream) const {
  size_t unread = stream.buffer.size - stream.start;
  if (stream.ended || unread < kRecordHeader) return false;
  const char* header = stream.buffer.data.get() + stream.start;
  return unread >= kRecordHeader + record_size(header) + tag_bytes(params_.cipher);
}

// The record at the front of `stream`, if it is complete and the next in sequence: opened and its frames handed on.
bool DataInbound::deliver_record(Stream& stream) {
  if (stream.ended || !stream.opener) return false;
  size_t unread = stream.buffer.size - stream.start;
  if (unread < kRecordHeader) return false;
  char* header = stream.buffer.data.get() + stream.start;
  uint32_t size = record_size(header);
  uint64_t sequence = record_sequence(header);
  size_t tag = tag_bytes(params_.cipher);
  if (size > kMaxRecord) {
    fail(fmt::format("a data link record of {} bytes (at most {}): not muster's, or corrupt", size, kMaxRecord));
    return false;
  }
  if (unread < kRecordHeader + size + tag) return false;
  if (sequence != next_sequence_ && sequence != kEndSequence) return false;
  char* payload = header + kRecordHeader;
  if (!stream.opener->open(sequence, payload, size, std::string_view(payload + size, tag))) {
    fail("a record on the data link failed authentication: tampered with or corrupted in transit");
    return false;
  }
  stream.start += kRecordHeader + size + tag;
  if (sequence == kEndSequence) {
    stream.ended = true;
    return false;
  }
  ++next_sequence_;
  for (size_t at = 0; at < size;) {
    if (size - at < 5) {
      fail("a data link record ends inside a frame");
      return false;
    }
    uint32_t length = little_u32(payload + at);
    if (length == 0 || length > protocol::kMaxFrame || length > size - at - 4) {
      fail(fmt::format("a data link record holds a frame of {} bytes that does not fit it", length));
      return false;
    }
    if (callbacks_.on_frame) {
      callbacks_.on_frame(static_cast<uint8_t>(payload[at + 4]), std::string_view(payload + at + 5, length - 1));
    }
    if (closed_) return false;
    at += 4 + length;
  }
  if (stream.start == stream.buffer.size) stream.start = stream.buffer.size = 0;
  return true;
}

}  // namespace muster::sync
