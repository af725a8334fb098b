// The first line that TCP servers send on connect (an sshd's `SSH-2.0-...` banner), read from many servers at
// once by one small loop of its own: doctor's fast ssh check asks every peer's sshd whether it answers at the
// address and port ssh would use, without an ssh process (or a shell) per peer. Bounded: at most `in_flight`
// connections open at a time (under sshd's MaxStartups), the whole round by `timeout_ms`; every socket is
// closed before read_banners() returns.
#pragma once

#include <string>
#include <vector>

namespace muster::posix {

struct BannerTarget {
  std::string host;  // a name (getaddrinfo: IPv4 or IPv6) or a numeric address
  int port = 22;
};

struct BannerOutcome {
  bool answered = false;  // a line arrived
  std::string line;       // without its CR LF
  std::string error;      // why not: "connection failed: ...", "no banner within N s", "unknown host"
};

// Outcomes in the order of `targets`.
std::vector<BannerOutcome> read_banners(const std::vector<BannerTarget>& targets, int in_flight, int timeout_ms);

}  // namespace muster::posix
