// The head's side of one agent connection (docs/agent-protocol.md): scans the preamble (keeping shell
// noise for diagnostics), answers a binary upload request, then decodes frames into AgentMessages and
// queues outgoing frames. Passive: the owner's loop calls on_*() when the session's fds are ready and
// drains take_messages(). It owns the transport process and its pipes; closing it closes them.
//
// "The head's side" is a role, not a process: the head's AgentPool holds one session per node, and an agent
// that starts a child agent (a relay chain, src/agent/relay.h) holds one for its child. That is why this layer
// sits below both.
#pragma once

#include <deque>
#include <optional>
#include <string>

#include "posix/poller.h"
#include "protocol/frame_reader.h"
#include "protocol/messages.h"
#include "protocol/preamble.h"
#include "transport/transport.h"
#include "util/block_queue.h"

namespace muster::connection {

class AgentSession {
 public:
  enum class State { connecting, ready, closed };

  // `binary` is uploaded when the node asks for it; it must outlive the session.
  AgentSession(std::string node, transport::AgentProcess process, const std::string& nonce,
               const transport::SelfBinary* binary, int64_t now_ms);

  int stdout_fd() const { return process_.from_agent.get(); }
  int stderr_fd() const { return process_.agent_stderr.get(); }
  int stdin_fd() const { return process_.to_agent.get(); }
  bool wants_write() const { return !outbox_.empty() && state_ != State::closed; }

  void on_stdout_readable(int64_t now_ms);
  void on_stderr_readable();
  void on_stdin_writable();
  void send(const protocol::HeadMessage& message);
  // An already encoded frame (protocol::encode), for one message sent to many nodes.
  void send_frame(std::string_view frame);
  // Queued only: written when the loop finds stdin writable, so many small frames leave in one write.
  void queue_frame(std::string_view frame);

  // Decoded messages in arrival order; Hello is consumed by the session (see hello()).
  std::deque<protocol::AgentMessage> take_messages();

  State state() const { return state_; }
  const std::string& node() const { return node_; }
  const protocol::Hello& hello() const { return hello_; }
  bool has_hello() const { return have_hello_; }
  int64_t last_heard_ms() const { return last_heard_ms_; }
  // Counts the agent as heard from now (its owner stopped reading it for a while on purpose: back-pressure).
  void heard_from(int64_t now_ms) { last_heard_ms_ = now_ms; }
  int64_t started_ms() const { return started_ms_; }
  // Whether any byte came back yet (shell noise, an upload request): the node is reachable.
  bool heard_anything() const { return last_heard_ms_ != started_ms_; }
  // How long the session may stay `connecting`: the connect timeout (+0.5 s for ssh to say why) while the node
  // is silent; once it answered (shell noise, an upload in progress), longer, but not forever.
  int64_t connect_limit_ms(int connect_timeout_s) const;

  // The two judgements every owner of a session makes on its timer (the head's pool for each node, a relay for
  // its child), one rule for both. Why to give up a session that has not said Hello by `now_ms` ("no answer
  // within 3.5 s", see connect_limit_ms); nullopt while it may wait, and once it said Hello.
  std::optional<std::string> connect_overdue(int64_t now_ms, int connect_timeout_s) const;
  // "no heartbeat for N ms" when nothing came from the agent for more than `heartbeat_timeout_ms`; nullopt
  // otherwise. The owner reads the session's stdout once more before acting on it, and asks again: after the
  // owner itself stalled (a loaded machine), the heartbeats may be waiting in the pipe, not yet in a round of
  // events.
  std::optional<std::string> heartbeat_missing(int64_t now_ms, int heartbeat_timeout_ms) const;
  // Why the session closed (empty while open).
  const std::string& failure() const { return failure_; }
  // Shell noise and the agent's / ssh's stderr, for error messages.
  std::string diagnostics() const;

  // Ends the session: closes stdin (the agent tears down on EOF) and the other pipes.
  void close(const std::string& why);
  // Signals the transport process's group (ssh client or local agent) and reaps it if it has ended.
  void kill_transport(int signal);
  bool transport_reaped();
  int transport_pgid() const { return process_.process.pgid(); }

 private:
  void on_preamble_bytes(std::string_view bytes);
  void on_frame_bytes(std::string_view bytes);
  void on_frames();  // decodes the complete frames the reader holds into the inbox
  void flush();

  std::string node_;
  transport::AgentProcess process_;
  const transport::SelfBinary* binary_;
  protocol::PreambleScanner preamble_;
  protocol::FrameReader frames_;
  BlockQueue outbox_;
  std::deque<protocol::AgentMessage> inbox_;
  protocol::Hello hello_;
  State state_ = State::connecting;
  bool uploaded_ = false;
  bool pipe_grown_ = false;  // the agent's stdout pipe got a larger buffer (a full read)
  bool have_hello_ = false;
  std::string stderr_text_;
  std::string failure_;
  int64_t started_ms_;
  int64_t last_heard_ms_;
  bool reaped_ = false;
};

// The agent's command line for a session: `muster agent` gets the session's nonce (echoed in its preamble) and
// the heartbeat period and timeout its head uses; a `virtual_node` is told its name (--node-name).
transport::AgentTarget agent_target(std::string node, std::string destination, const std::string& nonce,
                                    int heartbeat_ms, int heartbeat_timeout_ms, bool virtual_node = false);

// Which of a session's fds a Poller watches, kept in step with the session: stdout and stderr while open,
// stdin only while there are bytes to write. A closed fd has left epoll by itself.
struct SessionWatch {
  bool out = false, err = false, in = false;
  bool paused = false;  // the owner cannot take more now: stdout is not watched (back-pressure to the agent)
  void sync(posix::Poller& poller, const AgentSession& session, uint64_t out_token, uint64_t err_token,
            uint64_t in_token);
};

}  // namespace muster::connection
