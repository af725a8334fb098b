// DataOutbound: the sending end of one hop of sync's direct data path (docs/agent-protocol.md section 8a): the
// head's link to a node it connects to, or a relaying agent's link to its child. It opens `streams` TCP
// connections to the child's listener (data_inbound.h), proves the session's secret on each (data_handshake.h),
// and then carries frames: queued frames go into the open record, sealed straight from the caller's bytes into
// the outgoing buffer (the AEAD pass is the only pass over them), and records go to the stream with the least
// queued. In plaintext a file's bytes can go with sendfile, never read into this process.
//
// Passive, on the process's EventLoop: connect() returns at once; on_linked is called once every stream is up or
// with the first reason it cannot be (refused, timed out, the listener did not prove the secret), on_failed when a
// linked stream breaks. Callbacks run from the loop; the owner must not destroy the DataOutbound inside one (it
// looks at failed() in its round instead). It never decides what a failure means: the owner falls back to ssh.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "posix/event_loop.h"
#include "posix/fd.h"
#include "sync/data_crypto.h"
#include "sync/data_record.h"

namespace muster::sync {

class DataOutbound {
 public:
  using LinkedCallback = std::function<void(const std::string& error)>;  // "" when every stream is up
  using FailedCallback = std::function<void(const std::string& why)>;

  static std::unique_ptr<DataOutbound> connect(posix::EventLoop& loop, const std::string& address, int port,
                                               DataLinkParams params, LinkedCallback on_linked,
                                               FailedCallback on_failed);
  ~DataOutbound();
  DataOutbound(const DataOutbound&) = delete;
  DataOutbound& operator=(const DataOutbound&) = delete;

  bool linked() const { return linked_ && !failed_; }
  bool linked_once() const { return linked_; }  // linked at some point (it may have failed since)
  bool accepting() const { return linked_ && !failed_ && !finishing_; }  // queue_frame() sends
  bool failed() const { return failed_; }
  const std::string& failure() const { return failure_; }
  std::string where() const;  // "address:port"
  bool plaintext() const { return params_.cipher == DataCipher::plain; }

  // An encoded frame, given in up to two parts (a header and the rest), appended to the open record.
  void queue_frame(std::string_view head, std::string_view rest = {});
  // Plaintext only: a frame whose last `length` bytes are `file`'s from `offset`, sent with sendfile (a file that
  // ends early is padded with zeros, so the frame stays whole and the node's hash check refuses the file).
  void queue_file_frame(std::string_view head, std::shared_ptr<posix::Fd> file, uint64_t offset, size_t length);
  // Seals the open record and writes what the sockets take now; the rest goes as they drain.
  void flush();
  // Bytes queued and not yet written, over all streams.
  size_t queued() const;
  // After what is queued, an end record on every stream, then the sockets close (the child takes that as the clean
  // end of the session's data).
  void finish();
  bool finished() const;  // finish() was called and everything is written

 private:
  struct Piece {
    RawBytes bytes;
    size_t done = 0;
    std::shared_ptr<posix::Fd> file;  // set: `length` bytes of it from `offset` (bytes empty)
    uint64_t offset = 0;
    size_t length = 0;
  };
  struct Stream {
    posix::Fd fd;
    posix::EventLoop::FdWatch watch;
    std::string hello, in;  // the handshake: what was sent, what came back
    std::string out;        // handshake bytes still to write
    bool connected = false, ready = false;
    std::unique_ptr<RecordSealer> sealer;
    std::deque<Piece> pieces;
    size_t queued = 0;
  };
  DataOutbound(posix::EventLoop& loop, std::string address, int port, DataLinkParams params, LinkedCallback on_linked,
               FailedCallback on_failed);
  void on_event(size_t stream, uint32_t events);
  void handshake(Stream& stream, uint32_t events);
  void write_stream(Stream& stream);
  void watch_for(Stream& stream);
  void open_record();
  void seal_record();
  void fail(const std::string& why);
  void on_timeout();

  std::string address_;
  int port_;
  DataLinkParams params_;
  LinkedCallback on_linked_;
  FailedCallback on_failed_;
  std::vector<Stream> streams_;
  posix::EventLoop::Timer deadline_;
  bool linked_ = false, failed_ = false, finishing_ = false;
  std::string failure_;
  uint64_t next_sequence_ = 0;
  // The record being filled: its stream, and its bytes (header, sealed payload so far).
  size_t open_stream_ = 0;
  RawBytes open_;
  bool record_open_ = false;
};

}  // namespace muster::sync
