// The head's control channel: a unix socket (job_registry.h names it) on which other `muster` commands of the
// same user ask a running job for things (`muster stack`, `attach`, `stop`). Requests and replies are one JSON
// object per line. Passive, like everything in the head: the owner registers listen_fd() and each client's fd
// with its loop (AgentPool::watch_fd) and calls on_*() when they are ready; requests come back from
// take_requests() and replies go out with reply(). Only this user can connect (0600 socket in a 0700 directory,
// and SO_PEERCRED); the socket file is removed when the server is destroyed.
// A client's queue of replies is the owner's to bound (pending_bytes(): an attach client that lags is dropped);
// the server closes a client only when it hangs up, fails a write, sends an oversized request, or was marked with
// close_when_flushed() and has nothing left to send. has() tells the owner which clients are still there; it
// must stop watching a client's fd once has() says no.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "posix/fd.h"
#include "util/byte_queue.h"
#include "util/result.h"

namespace muster::head {

struct ControlRequest {
  int client = 0;  // the client's fd, to reply to
  nlohmann::json body;
};

class ControlServer {
 public:
  static Result<ControlServer> open(const std::string& path);
  ControlServer(ControlServer&&) noexcept = default;
  ControlServer& operator=(ControlServer&&) noexcept = default;
  ~ControlServer();

  int listen_fd() const { return listener_.get(); }
  const std::string& path() const { return path_; }

  // The listener is readable: returns the fds of newly accepted clients (to watch for reading).
  std::vector<int> on_listen_readable();
  // A client is readable (or writable, when it has replies queued). Returns false when the client is gone
  // (its fd is closed: stop watching it first).
  bool on_client_ready(int client);
  bool wants_write(int client) const;
  std::vector<ControlRequest> take_requests();
  // Queues one JSON line for the client and writes what it can now (a client that is gone is ignored).
  void reply(int client, const nlohmann::json& body);
  // The same with a line already encoded (ending in '\n'): one encoding for many clients.
  void reply_line(int client, std::string_view line);
  void close_client(int client);
  bool has(int client) const { return clients_.count(client) != 0; }
  bool closing(int client) const;
  size_t pending_bytes(int client) const;
  // The client gets what is queued, then is closed; nothing more is read from it.
  void close_when_flushed(int client);
  // Forgets what is queued for the client and not yet sent, except the rest of a line it has started to receive.
  void discard_unsent(int client);

 private:
  struct Client {
    posix::Fd fd;
    std::string in;
    ByteQueue out;
    bool closing = false;
  };
  ControlServer(std::string path, posix::Fd listener) : path_(std::move(path)), listener_(std::move(listener)) {}
  bool flush(Client& client);  // false: the client is done (write failed, or closing and flushed)

  std::string path_;
  posix::Fd listener_;
  std::map<int, Client> clients_;
  std::vector<ControlRequest> requests_;
};

// A connection to a job's control socket, refused (ErrorKind::remote) unless the process listening there runs as
// this user (SO_PEERCRED): a socket path from a record must not hand requests, or the attach stream, to someone
// else's listener.
Result<posix::Fd> connect_to_head(const std::string& socket);

// One request to a job's control socket (connect_to_head), blocking up to `timeout_ms` for the reply (one JSON
// line).
Result<nlohmann::json> control_request(const std::string& socket, const nlohmann::json& request, int timeout_ms);

}  // namespace muster::head
