#include "sync/data_outbound.h"

#include <algorithm>
#include <cstring>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/poller.h"
#include "posix/tcp_nonblocking.h"
#include "sync/data_handshake.h"

namespace muster::sync {
namespace {

constexpr size_t kRecordCapacity = kRecordTarget + (64u << 10);

}  // namespace

std::unique_ptr<DataOutbound> DataOutbound::connect(posix::EventLoop& loop, const std::string& address, int port,
                                                    DataLinkParams params, LinkedCallback on_linked,
                                                    FailedCallback on_failed) {
  std::unique_ptr<DataOutbound> link(
      new DataOutbound(loop, address, port, std::move(params), std::move(on_linked), std::move(on_failed)));
  DataOutbound* self = link.get();
  self->streams_.resize(self->params_.streams);  // never resized again: the watches point into it
  for (size_t i = 0; i < self->streams_.size() && !self->failed_; ++i) {
    auto fd = posix::start_tcp_connect(address, port);
    if (!fd) {
      self->fail(fmt::format("cannot open TCP to {}: {}", self->where(), fd.error().message));
      break;
    }
    auto& stream = self->streams_[i];
    stream.fd = std::move(*fd);
    auto watch = loop.watch(stream.fd.get(), posix::poll_writable, [self, i](uint32_t events) { self->on_event(i, events); });
    if (!watch) {
      self->fail(fmt::format("cannot watch a TCP socket: {}", watch.error().message));
      break;
    }
    stream.watch = std::move(*watch);
  }
  if (!self->failed_) self->deadline_.arm(posix::monotonic_ms() + self->params_.timeout_ms);
  return link;
}

DataOutbound::DataOutbound(posix::EventLoop& loop, std::string address, int port, DataLinkParams params,
                           LinkedCallback on_linked, FailedCallback on_failed)
    : address_(std::move(address)),
      port_(port),
      params_(std::move(params)),
      on_linked_(std::move(on_linked)),
      on_failed_(std::move(on_failed)),
      deadline_(loop.timer([this](int64_t) { on_timeout(); })) {}

DataOutbound::~DataOutbound() {
  for (auto& stream : streams_) stream.watch.reset();  // before the descriptors close
}

std::string DataOutbound::where() const {
  if (address_.find(':') != std::string::npos) return fmt::format("[{}]:{}", address_, port_);
  return fmt::format("{}:{}", address_, port_);
}

void DataOutbound::on_timeout() {
  if (linked_ || failed_) return;
  fail(fmt::format("cannot open TCP to {}: no answer within {:.0f} s (a firewall dropping the connection?)", where(),
                   params_.timeout_ms / 1000.0));
}

void DataOutbound::fail(const std::string& why) {
  if (failed_) return;
  failed_ = true;
  failure_ = why;
  deadline_.disarm();
  for (auto& stream : streams_) {
    stream.watch.reset();
    stream.fd.reset();
    stream.pieces.clear();
    stream.queued = 0;
  }
  record_open_ = false;
  if (!linked_) {
    if (on_linked_) on_linked_(why);
  } else if (on_failed_) {
    on_failed_(why);
  }
}

void DataOutbound::on_event(size_t index, uint32_t events) {
  if (failed_) return;
  Stream& stream = streams_[index];
  if (!stream.ready) return handshake(stream, events);
  if (events & (posix::poll_readable | posix::poll_hangup | posix::poll_error)) {
    // The child never writes after its challenge: anything readable is its end of the connection closing.
    char byte;
    auto got = posix::read_some(stream.fd.get(), std::span<char>(&byte, 1));
    if (!got) return fail(fmt::format("the data link to {} broke: {}", where(), got.error().message));
    if (got->eof) return fail(fmt::format("{} closed the data link", where()));
    if (!got->would_block) return fail(fmt::format("{} sent bytes on the data link", where()));
  }
  if (events & posix::poll_writable) write_stream(stream);
}

// connect done -> hello out -> challenge in -> proof out: the stream is ready.
void DataOutbound::handshake(Stream& stream, uint32_t events) {
  if (!stream.connected) {
    if (!(events & (posix::poll_writable | posix::poll_error | posix::poll_hangup))) return;
    if (auto outcome = posix::connect_outcome(stream.fd.get()); !outcome) {
      return fail(fmt::format("cannot open TCP to {}: {}", where(), outcome.error().message));
    }
    stream.connected = true;
    DataHello hello;
    hello.cipher = params_.cipher;
    hello.stream = static_cast<uint16_t>(&stream - streams_.data());
    hello.session = params_.session;
    hello.nonce = random_bytes(kNonceBytes);
    stream.hello = encode_hello(hello);
    stream.out = stream.hello;
  }
  if (events & (posix::poll_readable | posix::poll_hangup | posix::poll_error)) {
    char buffer[kChallengeBytes];
    auto got = posix::read_some(stream.fd.get(), std::span<char>(buffer, kChallengeBytes - stream.in.size()));
    if (!got) return fail(fmt::format("the data link to {} broke: {}", where(), got.error().message));
    if (got->eof) return fail(fmt::format("{} closed the data link before its handshake ended", where()));
    stream.in.append(buffer, got->bytes);
    if (stream.in.size() == kChallengeBytes) {
      auto proof = answer_challenge(params_.secret, stream.hello, stream.in);
      if (!proof) return fail(fmt::format("{}: {}", where(), proof.error().message));
      auto sealer = RecordSealer::create(params_.cipher, stream_key(params_.secret, stream.hello,
                                                                    std::string_view(stream.in).substr(8, kNonceBytes)));
      if (!sealer) return fail(sealer.error().message);
      stream.sealer = std::make_unique<RecordSealer>(std::move(*sealer));
      stream.out += *proof;
      stream.ready = true;
    }
  }
  write_stream(stream);
  if (failed_ || linked_) return;
  if (std::all_of(streams_.begin(), streams_.end(), [](const Stream& s) { return s.ready; })) {
    linked_ = true;
    deadline_.disarm();
    if (on_linked_) on_linked_("");
  }
}

void DataOutbound::watch_for(Stream& stream) {
  if (!stream.watch.active()) return;
  uint32_t events = posix::poll_readable;
  if (!stream.connected || !stream.out.empty() || !stream.pieces.empty()) events |= posix::poll_writable;
  (void)stream.watch.set_events(events);
}

void DataOutbound::write_stream(Stream& stream) {
  auto broke = [&](const Error& error) {
    fail(fmt::format("the data link to {} broke: {}", where(), error.message));
  };
  while (!stream.out.empty()) {
    auto wrote = posix::write_some(stream.fd.get(), stream.out);
    if (!wrote) return broke(wrote.error());
    if (wrote->would_block) return watch_for(stream);
    stream.out.erase(0, wrote->bytes);
  }
  while (stream.ready && !stream.pieces.empty()) {
    Piece& piece = stream.pieces.front();
    Result<posix::IoResult> wrote = posix::IoResult{};
    if (piece.file) {
      wrote = posix::send_file(stream.fd.get(), piece.file->get(), piece.offset + piece.done, piece.length - piece.done);
      if (wrote && wrote->bytes == 0 && !wrote->would_block) {
        // The file ended early: zeros in its place keep the frame whole (the node's hash check refuses the file).
        size_t left = piece.length - piece.done;
        piece.file.reset();
        piece.bytes.allocate(left);
        std::memset(piece.bytes.data.get(), 0, left);
        piece.bytes.size = left;
        piece.length = left;
        piece.done = 0;
        continue;
      }
    } else {
      wrote = posix::write_some(stream.fd.get(), piece.bytes.view().substr(piece.done));
    }
    if (!wrote) return broke(wrote.error());
    if (wrote->would_block) break;
    piece.done += wrote->bytes;
    stream.queued -= wrote->bytes;
    size_t total = piece.file ? piece.length : piece.bytes.size;
    if (piece.done == total) stream.pieces.pop_front();
  }
  if (finishing_ && stream.pieces.empty() && stream.out.empty()) {
    stream.watch.reset();  // all written, the end record included: close (the child reads to the end)
    stream.fd.reset();
    return;
  }
  watch_for(stream);
}

void DataOutbound::open_record() {
  size_t best = 0;
  for (size_t i = 1; i < streams_.size(); ++i) {
    if (streams_[i].queued < streams_[best].queued) best = i;
  }
  open_stream_ = best;
  open_.allocate(kRecordCapacity);
  open_.size = kRecordHeader;
  put_record_header(open_.data.get(), 0, next_sequence_);
  streams_[best].sealer->begin(next_sequence_++);
  record_open_ = true;
}

void DataOutbound::seal_record() {
  if (!record_open_) return;
  record_open_ = false;
  Stream& stream = streams_[open_stream_];
  size_t tag = tag_bytes(params_.cipher);
  stream.sealer->finish(open_.data.get() + open_.size);
  uint32_t payload = static_cast<uint32_t>(open_.size - kRecordHeader);
  put_record_header(open_.data.get(), payload, record_sequence(open_.data.get()));
  open_.size += tag;
  stream.queued += open_.size;
  Piece piece;
  piece.bytes = std::move(open_);
  stream.pieces.push_back(std::move(piece));
  open_ = RawBytes();
}

void DataOutbound::queue_frame(std::string_view head, std::string_view rest) {
  if (failed_ || !linked_ || finishing_) return;
  size_t need = head.size() + rest.size();
  size_t tag = tag_bytes(params_.cipher);
  if (record_open_ && open_.size + need + tag > open_.capacity) seal_record();
  if (!record_open_) {
    open_record();
    if (kRecordHeader + need + tag > open_.capacity) {  // a frame larger than a record's usual room
      RawBytes bigger;
      bigger.allocate(kRecordHeader + need + tag);
      std::memcpy(bigger.data.get(), open_.data.get(), kRecordHeader);
      bigger.size = kRecordHeader;
      open_ = std::move(bigger);
    }
  }
  auto& sealer = *streams_[open_stream_].sealer;
  sealer.seal(head, open_.data.get() + open_.size);
  open_.size += head.size();
  sealer.seal(rest, open_.data.get() + open_.size);
  open_.size += rest.size();
  if (open_.size - kRecordHeader >= kRecordTarget) seal_record();
}

void DataOutbound::queue_file_frame(std::string_view head, std::shared_ptr<posix::Fd> file, uint64_t offset,
                                    size_t length) {
  if (failed_ || !linked_ || finishing_) return;
  seal_record();
  open_record();  // (plaintext: nothing is sealed, the sealer only counts)
  Stream& stream = streams_[open_stream_];
  record_open_ = false;
  std::memcpy(open_.data.get() + open_.size, head.data(), head.size());
  open_.size += head.size();
  put_record_header(open_.data.get(), static_cast<uint32_t>(head.size() + length), record_sequence(open_.data.get()));
  Piece memory;
  memory.bytes = std::move(open_);
  open_ = RawBytes();
  stream.queued += memory.bytes.size + length;
  stream.pieces.push_back(std::move(memory));
  Piece from_file;
  from_file.file = std::move(file);
  from_file.offset = offset;
  from_file.length = length;
  stream.pieces.push_back(std::move(from_file));
}

void DataOutbound::flush() {
  if (failed_) return;
  seal_record();
  for (auto& stream : streams_) {
    if (failed_) return;
    if (stream.fd.valid()) write_stream(stream);
  }
}

size_t DataOutbound::queued() const {
  size_t total = record_open_ ? open_.size : 0;
  for (const auto& stream : streams_) total += stream.queued;
  return total;
}

void DataOutbound::finish() {
  if (failed_ || finishing_) return;
  seal_record();
  if (linked_) {
    for (auto& stream : streams_) {
      size_t tag = tag_bytes(params_.cipher);
      Piece end;
      end.bytes.allocate(kRecordHeader + tag);
      put_record_header(end.bytes.data.get(), 0, kEndSequence);
      stream.sealer->begin(kEndSequence);
      stream.sealer->finish(end.bytes.data.get() + kRecordHeader);
      end.bytes.size = kRecordHeader + tag;
      stream.queued += end.bytes.size;
      stream.pieces.push_back(std::move(end));
    }
  }
  finishing_ = true;
  if (!linked_) {
    for (auto& stream : streams_) {
      stream.watch.reset();
      stream.fd.reset();
    }
    deadline_.disarm();
    return;
  }
  flush();
}

bool DataOutbound::finished() const {
  return finishing_ && std::all_of(streams_.begin(), streams_.end(), [](const Stream& s) { return !s.fd.valid(); });
}

}  // namespace muster::sync
