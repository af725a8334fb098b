// The per-run token of doctor's TCP checks (the master-port check, `--bandwidth`): their listeners on the nodes
// accept any connection to the port, so a stray one (a port scanner, another user's program, a leftover of an
// earlier run) would be counted as a peer, or take a peer's place. Every connection therefore starts with the line
//     MUSTER-PROBE <token>\n
// from the connecting side; the listener closes, without counting it, a connection that does not send exactly
// that within a second, and answers MUSTER-PROBE-OK\n to one that does, so the connecting side also knows it
// reached a muster listener and not some other service on that port. The head makes one random token per doctor
// run and hands it to `muster node cross|bw` in the environment (kProbeTokenEnv), which other users cannot read
// (unlike argv, which `ps` shows everyone).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.h"

namespace muster::doctor {

inline constexpr const char* kProbeTokenEnv = "MUSTER_PROBE_TOKEN";
inline constexpr int kTokenWaitMs = 1000;  // how long a listener waits for a connection's token line

// The line a connecting side sends ("MUSTER-PROBE <token>\n") and the listener's answer without its '\n'.
std::string probe_hello_line(std::string_view token);
inline constexpr std::string_view kProbeAnswer = "MUSTER-PROBE-OK";

// 32 random hex digits.
std::string new_probe_token();
// The token a `muster node` operation got from the head (empty: none).
std::string probe_token_from_environment();

// Connecting side: sends the token line and waits (until `deadline_ms`) for the listener's answer.
Result<void> present_probe_token(int fd, std::string_view token, int64_t deadline_ms);
// Listening side: true (after answering) when the connection sent exactly the token line within kTokenWaitMs (or
// by `deadline_ms`, if sooner); false for anything else. Reads nothing past the line.
bool accept_probe_token(int fd, std::string_view token, int64_t deadline_ms);

}  // namespace muster::doctor
