// `muster node port`: the node side of doctor's master-port check (diagnose.h). Node 0 listens on the port and
// counts who reaches it; every other node connects to node 0's address. Prints one line for the head:
// `in-use <why>` or `accepted <n>` (the listener), `reached` or `unreachable <why>` (the others). Only connections
// that present the run's token count (probe_token.h): a stray connection neither counts nor ends the wait, and a
// connecting node says `reached` only when muster's listener of this run answered.
#pragma once

#include <string>

namespace muster::doctor {

struct PortCheck {
  int listen_port = 0;  // > 0: be the listener
  int expect = 0;       // connections the listener waits for
  std::string connect_host;
  int connect_port = 0;
  int seconds = 10;
  std::string token;  // this run's (probe_token.h)
};

// Returns the line to print (with '\n').
std::string run_port_check(const PortCheck& check);

}  // namespace muster::doctor
