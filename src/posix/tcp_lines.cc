#include "posix/tcp_lines.h"

#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <optional>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/fd.h"
#include "posix/poller.h"

namespace muster::posix {
namespace {

constexpr size_t kMaxLine = 512;  // RFC 4253: an ssh identification line is at most 255 bytes
constexpr int kRetryMs = 50;
constexpr int kAttemptMs = 1000;  // a connect not answered by then is made again (with `retry`)
constexpr int kInboundWaitMs = 1000;  // for an accepted connection's line
constexpr uint64_t kListenerBase = uint64_t{1} << 50;  // + the server's index
constexpr uint64_t kInboundBase = uint64_t{1} << 40;

struct Outgoing {
  Fd fd;
  bool connected = false;
  int64_t started = 0;
  std::string bytes;
  int64_t retry_at = 0;  // > 0: waiting to try again
};

struct Incoming {
  size_t server = 0;
  Fd fd;
  std::string bytes;
  int64_t deadline = 0;
};

std::string numeric_address(const sockaddr* address, socklen_t length) {
  char host[NI_MAXHOST] = "";
  if (::getnameinfo(address, length, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0) return "";
  return host;
}

// A non-blocking connect to the first address of the target that starts; an invalid Fd and `error` (with
// `refused` set for ECONNREFUSED) when none does.
bool worth_retrying(int error) { return error == ECONNREFUSED || error == EHOSTUNREACH || error == ENETUNREACH || error == ETIMEDOUT; }

Fd start_connect(const LineTarget& target, bool ipv4_only, std::string* address, std::string* error, bool* refused) {
  addrinfo hints{};
  hints.ai_family = ipv4_only ? AF_INET : AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string port = std::to_string(target.port);
  int rc = ::getaddrinfo(target.host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) {
    *error = fmt::format("cannot resolve {}: {}", target.host, ::gai_strerror(rc));
    return Fd();
  }
  Fd fd;
  std::string last = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    Fd candidate(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    if (!candidate.valid()) {
      last = std::strerror(errno);
      continue;
    }
    if (::connect(candidate.get(), a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) {
      *address = numeric_address(a->ai_addr, a->ai_addrlen);
      fd = std::move(candidate);
      break;
    }
    *refused = worth_retrying(errno);
    last = std::strerror(errno);
  }
  ::freeaddrinfo(found);
  if (!fd.valid()) *error = "connection failed: " + last;
  return fd;
}

// The line in `bytes`, once complete (or cut at kMaxLine / EOF); nullopt while more may come.
std::optional<std::string> complete_line(const std::string& bytes, bool eof) {
  size_t newline = bytes.find('\n');
  if (newline == std::string::npos && !eof && bytes.size() < kMaxLine) return std::nullopt;
  std::string line = bytes.substr(0, newline);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

class Round {
 public:
  Round(const LineRound& round, Poller& poller)
      : round_(round), poller_(poller), out_(round.targets.size()), last_error_(round.targets.size()), result_{std::vector<LineOutcome>(round.targets.size()), std::vector<int>(round.servers.size()), 0} {}

  LineRoundResult run();

 private:
  void start_waiting(int64_t now);
  void on_outgoing(size_t i, uint32_t events, int64_t now);
  void finish_outgoing(size_t i, std::string error);
  void retry_later(size_t i, int64_t now, std::string why);
  void accept_all(size_t server, int64_t now);
  void on_incoming(uint64_t token);
  void drop_incoming(uint64_t token) {
    (void)poller_.remove(in_[token].fd.get());
    in_.erase(token);
  }
  bool done() const {
    bool served = true;
    for (size_t k = 0; k < round_.servers.size(); ++k) served = served && result_.accepted[k] >= round_.servers[k].wanted;
    return waiting_.empty() && open_ == 0 && retrying_ == 0 && served;
  }

  const LineRound& round_;
  Poller& poller_;
  std::vector<Outgoing> out_;
  std::vector<std::string> last_error_;  // of a target being retried
  std::deque<size_t> waiting_;
  size_t open_ = 0, retrying_ = 0;
  std::map<uint64_t, Incoming> in_;
  uint64_t next_in_ = kInboundBase;
  LineRoundResult result_;
};

void Round::start_waiting(int64_t now) {
  for (size_t i = 0; i < out_.size(); ++i) {
    if (out_[i].retry_at > 0 && out_[i].retry_at <= now) {
      out_[i].retry_at = 0;
      --retrying_;
      waiting_.push_back(i);
    }
  }
  size_t limit = static_cast<size_t>(std::max(1, round_.in_flight));
  while (!waiting_.empty() && open_ < limit) {
    size_t i = waiting_.front();
    waiting_.pop_front();
    std::string error;
    bool refused = false;
    Fd fd = start_connect(round_.targets[i], round_.ipv4_only, &result_.outcomes[i].address, &error, &refused);
    if (!fd.valid() || !poller_.add(fd.get(), poll_writable | poll_readable, i)) {
      if (refused && round_.retry) {
        out_[i].retry_at = now + kRetryMs;
        ++retrying_;
        last_error_[i] = error;
      } else {
        result_.outcomes[i].error = error.empty() ? "connection failed" : error;
      }
      continue;
    }
    out_[i].fd = std::move(fd);
    out_[i].started = now;
    ++open_;
  }
}

void Round::retry_later(size_t i, int64_t now, std::string why) {
  (void)poller_.remove(out_[i].fd.get());
  out_[i].fd.reset();
  --open_;
  out_[i].retry_at = now + kRetryMs;
  ++retrying_;
  last_error_[i] = std::move(why);
}

void Round::finish_outgoing(size_t i, std::string error) {
  if (out_[i].fd.valid()) {
    (void)poller_.remove(out_[i].fd.get());
    out_[i].fd.reset();
    --open_;
  }
  if (!result_.outcomes[i].answered && result_.outcomes[i].error.empty()) result_.outcomes[i].error = std::move(error);
}

void Round::on_outgoing(size_t i, uint32_t events, int64_t now) {
  Outgoing& o = out_[i];
  if (!o.fd.valid()) return;
  if (!o.connected) {
    int so_error = 0;
    socklen_t length = sizeof so_error;
    ::getsockopt(o.fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &length);
    if (round_.retry && worth_retrying(so_error)) {
      return retry_later(i, now, std::string("connection failed: ") + std::strerror(so_error));
    }
    if (so_error != 0) return finish_outgoing(i, std::string("connection failed: ") + std::strerror(so_error));
    o.connected = true;
    if (!round_.send.empty() && !write_all(o.fd.get(), round_.send)) return finish_outgoing(i, "connection failed: write");
    (void)poller_.modify(o.fd.get(), poll_readable, i);
  }
  if (!(events & (poll_readable | poll_hangup | poll_error))) return;
  char buffer[kMaxLine];
  auto got = read_some(o.fd.get(), std::span<char>(buffer, sizeof buffer));
  if (!got) return finish_outgoing(i, "connection failed: " + got.error().message);
  if (got->would_block) return;
  o.bytes.append(buffer, got->bytes);
  auto line = complete_line(o.bytes, got->eof);
  if (!line) return;
  if (o.bytes.find('\n') != std::string::npos || !line->empty()) {
    result_.outcomes[i].answered = true;
    result_.outcomes[i].line = *line;
  }
  finish_outgoing(i, "closed without a line");
}

void Round::accept_all(size_t server, int64_t now) {
  for (;;) {
    Fd fd(::accept4(round_.servers[server].listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd.valid()) return;  // EAGAIN, or an error the next readiness repeats
    uint64_t token = next_in_++;
    if (!poller_.add(fd.get(), poll_readable, token)) continue;
    in_[token] = Incoming{server, std::move(fd), "", now + kInboundWaitMs};
  }
}

void Round::on_incoming(uint64_t token) {
  auto it = in_.find(token);
  if (it == in_.end()) return;
  Incoming& c = it->second;
  char buffer[kMaxLine];
  auto got = read_some(c.fd.get(), std::span<char>(buffer, sizeof buffer));
  if (got && got->would_block) return;
  if (got) c.bytes.append(buffer, got->bytes);
  auto line = got ? complete_line(c.bytes, got->eof) : std::optional<std::string>("");
  if (!line) return;
  const LineServer& server = round_.servers[c.server];
  if (c.bytes.substr(0, c.bytes.find('\n') + 1) == server.expect) {
    (void)write_all(c.fd.get(), server.answer);
    ++result_.accepted[c.server];
  } else {
    ++result_.strays;
  }
  drop_incoming(token);
}

LineRoundResult Round::run() {
  for (size_t i = 0; i < out_.size(); ++i) waiting_.push_back(i);
  result_.accepted.assign(round_.servers.size(), 0);
  for (size_t k = 0; k < round_.servers.size(); ++k) (void)poller_.add(round_.servers[k].listener, poll_readable, kListenerBase + k);
  int64_t deadline = monotonic_ms() + round_.timeout_ms;
  for (;;) {
    int64_t now = monotonic_ms();
    if (round_.retry) {
      for (size_t i = 0; i < out_.size(); ++i) {
        if (out_[i].fd.valid() && !out_[i].connected && now - out_[i].started >= kAttemptMs) {
          retry_later(i, now, fmt::format("connection failed: no answer to a connect within {} ms", kAttemptMs));
        }
      }
    }
    start_waiting(now);
    for (auto it = in_.begin(); it != in_.end();) {
      auto next = std::next(it);
      if (it->second.deadline <= now) {
        ++result_.strays;
        drop_incoming(it->first);
      }
      it = next;
    }
    if (done() || now >= deadline) break;
    int64_t wake = deadline;
    for (const auto& o : out_) {
      if (o.retry_at > 0) wake = std::min(wake, o.retry_at);
      if (round_.retry && o.fd.valid() && !o.connected) wake = std::min(wake, o.started + kAttemptMs);
    }
    for (const auto& [token, c] : in_) wake = std::min(wake, c.deadline);
    auto events = poller_.wait(timeout_until(wake));
    if (!events) break;
    now = monotonic_ms();
    for (const auto& event : *events) {
      if (event.token >= kListenerBase) accept_all(event.token - kListenerBase, now);
      else if (event.token >= kInboundBase) on_incoming(event.token);
      else on_outgoing(event.token, event.events, now);
    }
  }
  for (const auto& server : round_.servers) (void)poller_.remove(server.listener);
  for (auto& [token, c] : in_) (void)poller_.remove(c.fd.get());
  std::string late = fmt::format("no answer within {} s", (round_.timeout_ms + 999) / 1000);
  for (size_t i = 0; i < out_.size(); ++i) {
    if (out_[i].fd.valid()) finish_outgoing(i, out_[i].connected ? late : "connection failed: no answer within the time");
    else if (!result_.outcomes[i].answered && result_.outcomes[i].error.empty()) {
      result_.outcomes[i].error = out_[i].retry_at > 0 ? last_error_[i] + " (tried until the end of the round)"
                                                       : "not tried within the time";
    }
  }
  return std::move(result_);
}

}  // namespace

LineRoundResult exchange_lines(const LineRound& round) {
  auto poller = Poller::create();
  if (!poller) {
    LineRoundResult result{std::vector<LineOutcome>(round.targets.size()), std::vector<int>(round.servers.size()), 0};
    for (auto& outcome : result.outcomes) outcome.error = "no poller: " + poller.error().message;
    return result;
  }
  return Round(round, *poller).run();
}

}  // namespace muster::posix
