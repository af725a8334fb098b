#include "posix/tcp_banner.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>

#include <fmt/core.h>

#include "posix/clock.h"
#include "posix/fd.h"
#include "posix/poller.h"

namespace muster::posix {
namespace {

constexpr size_t kMaxBanner = 512;  // RFC 4253: the identification line is at most 255 bytes

struct Attempt {
  Fd fd;
  bool connected = false;
  std::string bytes;
};

// A non-blocking connect to the first address of host:port that starts; "" error when under way.
Fd start_connect(const BannerTarget& target, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
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
      fd = std::move(candidate);
      break;
    }
    last = std::strerror(errno);
  }
  ::freeaddrinfo(found);
  if (!fd.valid()) *error = "connection failed: " + last;
  return fd;
}

}  // namespace

std::vector<BannerOutcome> read_banners(const std::vector<BannerTarget>& targets, int in_flight, int timeout_ms) {
  std::vector<BannerOutcome> outcomes(targets.size());
  auto poller = Poller::create();
  if (!poller) {
    for (auto& outcome : outcomes) outcome.error = "no poller: " + poller.error().message;
    return outcomes;
  }
  std::vector<Attempt> attempts(targets.size());
  std::deque<size_t> waiting;
  for (size_t i = 0; i < targets.size(); ++i) waiting.push_back(i);
  size_t open = 0;
  auto finish = [&](size_t i, std::string error) {
    if (attempts[i].fd.valid()) {
      (void)poller->remove(attempts[i].fd.get());
      attempts[i].fd.reset();
      --open;
    }
    if (!outcomes[i].answered && outcomes[i].error.empty()) outcomes[i].error = std::move(error);
  };
  int64_t deadline = monotonic_ms() + timeout_ms;
  while (!waiting.empty() || open > 0) {
    while (!waiting.empty() && open < static_cast<size_t>(in_flight > 0 ? in_flight : 1)) {
      size_t i = waiting.front();
      waiting.pop_front();
      std::string error;
      Fd fd = start_connect(targets[i], &error);
      if (!fd.valid() || !poller->add(fd.get(), poll_writable | poll_readable, i)) {
        outcomes[i].error = error.empty() ? "connection failed" : error;
        continue;
      }
      attempts[i].fd = std::move(fd);
      ++open;
    }
    int left = timeout_until(deadline);
    if (left == 0) break;
    auto events = poller->wait(left);
    if (!events) break;
    for (const auto& event : *events) {
      size_t i = event.token;
      Attempt& attempt = attempts[i];
      if (!attempt.fd.valid()) continue;
      if (!attempt.connected) {
        int so_error = 0;
        socklen_t length = sizeof so_error;
        ::getsockopt(attempt.fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &length);
        if (so_error != 0) {
          finish(i, std::string("connection failed: ") + std::strerror(so_error));
          continue;
        }
        attempt.connected = true;
        (void)poller->modify(attempt.fd.get(), poll_readable, i);
      }
      if (!(event.events & (poll_readable | poll_hangup | poll_error))) continue;
      char buffer[kMaxBanner];
      auto got = read_some(attempt.fd.get(), std::span<char>(buffer, sizeof buffer));
      if (!got) {
        finish(i, "connection failed: " + got.error().message);
        continue;
      }
      if (got->would_block) continue;
      attempt.bytes.append(buffer, got->bytes);
      size_t newline = attempt.bytes.find('\n');
      if (newline != std::string::npos || got->eof || attempt.bytes.size() >= kMaxBanner) {
        std::string line = attempt.bytes.substr(0, newline);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (newline != std::string::npos || !line.empty()) {
          outcomes[i].answered = true;
          outcomes[i].line = line;
        }
        finish(i, "closed without a banner");
      }
    }
  }
  std::string late = fmt::format("no banner within {} s", (timeout_ms + 999) / 1000);
  for (size_t i = 0; i < targets.size(); ++i) {
    if (attempts[i].fd.valid()) finish(i, attempts[i].connected ? late : "connection failed: no answer within the time");
    else if (!outcomes[i].answered && outcomes[i].error.empty()) outcomes[i].error = "not tried within the time";
  }
  return outcomes;
}

}  // namespace muster::posix
