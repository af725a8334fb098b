// One line each way with many TCP peers at once, by one small loop of its own: doctor's fast ssh check reads
// every peer sshd's banner (`SSH-2.0-...`), or, in its mesh mode, connects to every peer's probe listener with the
// run's token while serving its own listener for them. Bounded: at most `in_flight` outgoing connections open at a
// time (under sshd's MaxStartups for banners), the whole round by `timeout_ms`; every socket it opened is closed
// before exchange_lines() returns (the listener is the caller's).
#pragma once

#include <string>
#include <vector>

namespace muster::posix {

struct LineTarget {
  std::string host;  // a name (getaddrinfo: IPv4 or IPv6) or a numeric address
  int port = 22;
};

struct LineOutcome {
  bool answered = false;  // a line arrived
  std::string line;       // without its CR LF
  std::string address;    // the numeric address connected to ("" when none)
  std::string error;      // why not: "connection failed: ...", "no answer within N s", "cannot resolve ..."
};

// A serving half: connections accepted on `listener` (a listening socket, non-blocking) that send exactly the line
// `expect` get `answer` back and are counted; anything else is closed and counted as a stray.
struct LineServer {
  int listener = -1;
  std::string expect;   // with its '\n'
  std::string answer;   // with its '\n'
  int wanted = 0;       // the round may end once this many were counted
};

struct LineRound {
  std::vector<LineTarget> targets;
  std::string send;             // written on every outgoing connection once connected ("": only read)
  // Retry a connect that was refused (the peer's listener is not up yet), found no route (ARP lost in a burst) or
  // was not answered within a second (a SYN lost), every 50 ms, until the round's end.
  bool retry = false;
  bool ipv4_only = false;       // connect to IPv4 addresses only (a listener of socket.h's listen_tcp)
  std::vector<LineServer> servers;
  int in_flight = 8;
  int timeout_ms = 10'000;
};

struct LineRoundResult {
  std::vector<LineOutcome> outcomes;  // in the order of targets
  std::vector<int> accepted;          // per server: connections that sent `expect`
  int strays = 0;
};

LineRoundResult exchange_lines(const LineRound& round);

}  // namespace muster::posix
