// DataInbound: the receiving end of one hop of sync's direct data path (docs/agent-protocol.md section 8a), on a
// node: a listener on a port the kernel picks, for this session only, that takes `streams` connections from the
// node's parent. A connection counts only once it proved the session's secret (data_handshake.h); any other —
// a wrong secret, another session's, not muster at all, silent for 2 s — is closed and counted in refused(), and
// the listener goes on waiting for the real one. Once every stream is in, the listener closes.
//
// Then it reads records (data_record.h), opens each in place (the AEAD pass; a record that fails it is tampered
// with or corrupt, and ends the link) and hands their frames on in the sender's order, whatever stream each
// record took: a stream whose next record is not the next one pauses until it is. Frames are views into its
// buffer, valid during the call.
//
// Passive, on the process's EventLoop. Callbacks run from the loop; the owner must not destroy the DataInbound
// inside one (it looks at failed()/ended() in its round). It never decides what a failure means for the files:
// the owner drops those in flight and says so to the head.
#pragma once

#include <cstdint>
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

class DataInbound {
 public:
  struct Callbacks {
    std::function<void(uint8_t type, std::string_view payload)> on_frame;
    std::function<void()> on_linked;                        // every stream is in
    std::function<void(const std::string& why)> on_failed;  // once; nothing more comes
    std::function<void()> on_end;                           // every stream ended cleanly (after the last frame)
  };

  static Result<std::unique_ptr<DataInbound>> listen(posix::EventLoop& loop, DataLinkParams params,
                                                     Callbacks callbacks);
  ~DataInbound();
  DataInbound(const DataInbound&) = delete;
  DataInbound& operator=(const DataInbound&) = delete;

  int port() const { return port_; }
  bool linked() const { return linked_; }
  bool failed() const { return failed_; }
  bool ended() const { return ended_; }
  size_t refused() const { return refused_; }
  uint64_t bytes_in() const { return bytes_in_; }
  // Stops listening and reading (the session ended, or the owner gave up on it): no callback after this.
  void close();

 private:
  struct Pending {  // an accepted connection in its handshake
    posix::Fd fd;
    posix::EventLoop::FdWatch watch;
    std::string peer, hello, in, out;
    std::string listener_nonce;
    int64_t deadline = 0;
    bool done = false;
  };
  struct Stream {
    posix::Fd fd;
    posix::EventLoop::FdWatch watch;
    std::unique_ptr<RecordOpener> opener;
    RawBytes buffer;
    size_t start = 0;  // buffer bytes before this were handed on
    bool ended = false;  // its end record was handed on
    bool eof = false;    // the sender closed it (what it sent before may still wait in the buffer)
  };
  DataInbound(posix::EventLoop& loop, DataLinkParams params, Callbacks callbacks);
  void on_accept();
  void on_pending(Pending& pending, uint32_t events);
  void refuse(Pending& pending);
  void admit(Pending& pending, uint16_t stream, std::string key);
  void on_stream(size_t index);
  void deliver();
  bool deliver_record(Stream& stream);
  bool complete_record_waits(const Stream& stream) const;
  void fail(const std::string& why);
  void on_timer(int64_t now);
  void drop_pending();

  posix::EventLoop& loop_;
  DataLinkParams params_;
  Callbacks callbacks_;
  posix::Fd listener_;
  posix::EventLoop::FdWatch listen_watch_;
  posix::EventLoop::Timer timer_;
  int port_ = 0;
  int64_t deadline_ms_ = 0;
  std::vector<std::unique_ptr<Pending>> pending_;
  std::vector<Stream> streams_;
  size_t admitted_ = 0;
  uint64_t next_sequence_ = 0;
  uint64_t bytes_in_ = 0;
  size_t refused_ = 0;
  bool linked_ = false, failed_ = false, ended_ = false, closed_ = false, delivering_ = false;
};

}  // namespace muster::sync
