// The `muster attach` clients of a running job (jobs/attach_client.h is the other end). Each gets what the head
// would show on its own terminal, as JSON lines on the control socket, and renders it with its own terminal's
// settings (TTY, colour, width, the ranks it wants):
//   the hello  {"ok": true, "job_id", "run_dir", "prefix", "world_size", "nodes", "max_local_world_size"}
//   the last kReplayLines lines and notices, then everything live:
//   {"e": "line"|"progress"|"eos", "r": rank, "lr": local rank, "nr": node rank, "n": node, "s": 1|2, "t": text}
//   {"e": "notice", "t": text}     muster's own messages (teardown, stalls, the exit table)
//   {"e": "end", "code": N}        the job is over (N: the launch's exit code); the head then closes the socket
//   {"e": "dropped", "t": why}     this client fell too far behind and is closed; the job goes on
// A slow client never slows the job: each client's queue is bounded (max_backlog bytes); one that falls that far
// behind loses what is queued for it, is sent "dropped" and closed, and the head's own log says so (take_notices). Passive: the launcher feeds
// it (as LogMux's tap, with notices, at the end) and tells it which clients went away.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "launch/job_control.h"
#include "logs/line_tap.h"

namespace muster::launch {

class AttachHub final : public logs::LineTap {
 public:
  static constexpr size_t kReplayLines = 100;
  static constexpr size_t kDefaultMaxBacklog = 4u << 20;

  // `hello`: the job's facts every client gets first ("ok": true is added).
  AttachHub(JobControl& control, nlohmann::json hello, size_t max_backlog = kDefaultMaxBacklog);

  void attach(int client);
  void forget(int client);  // the client went away
  size_t clients() const { return clients_.size(); }

  void line(const logs::Source& source, std::string_view text) override;
  void progress(const logs::Source& source, std::string_view text, int64_t now_ms) override;
  void end_of_stream(const logs::Source& source) override;
  void notice(std::string_view text);
  // The job is over: every client gets "end" and is closed once it has read everything.
  void end(int exit_code);

  // What the head should say about its clients (a client dropped for lagging), since the last call.
  std::vector<std::string> take_notices() { return std::exchange(notices_, {}); }

 private:
  struct Recent {
    bool notice = false;
    logs::Source source;  // of a line
    std::string text;
  };
  void remember(bool notice, const logs::Source* source, std::string_view text);
  static nlohmann::json line_event(const logs::Source& source, std::string_view text);
  static nlohmann::json notice_event(std::string_view text);
  void send(const nlohmann::json& event);
  std::string encode(const nlohmann::json& event) const;

  JobControl& control_;
  nlohmann::json hello_;
  size_t max_backlog_;
  std::set<int> clients_;
  std::vector<Recent> recent_;  // a ring of the last kReplayLines lines and notices, for a client that attaches later
  size_t recent_next_ = 0, recent_count_ = 0;
  std::vector<std::string> notices_;
  std::optional<int> ended_;  // the job's exit code once end() was called
};

}  // namespace muster::launch
