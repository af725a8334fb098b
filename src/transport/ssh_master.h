// Sessions opened directly on an ssh ControlMaster, without an ssh client process: what `ssh -S PATH host cmd` (a
// "passenger" mux client) asks the master for, asked by muster itself over the master's unix socket (OpenSSH's
// PROTOCOL.mux, version 4: a hello each way, MUX_C_NEW_SESSION with the command, then the session's stdin, stdout
// and stderr passed as descriptors). The master runs the command over its already authenticated connection and
// moves the bytes between those descriptors and the node itself; the session lasts as long as the control
// connection (closing it makes the master close the session, which the agent sees as EOF), and the master keeps
// running for ControlPersist after the last one.
//
// Why: with masters open, a `launch` on N nodes started N ssh clients, each ~5 ms of CPU on the head (exec, config,
// the mux exchange) - most of the head's share of a multiplexed start, and what pdsh over ControlMaster pays too.
// Only masters muster itself started are used: the socket is in muster's private control directory under a name
// derived from the destination and the ssh options (ssh_command.h's control_path), and its peer must be this user.
// Anything unexpected (no socket, a stale one, a refusal) falls back to an ssh client, which makes a new master.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "transport/transport.h"

namespace muster::transport {

// Message types (PROTOCOL.mux section 11).
inline constexpr uint32_t kMuxHello = 0x00000001;
inline constexpr uint32_t kMuxNewSession = 0x10000002;
inline constexpr uint32_t kMuxOk = 0x80000001;
inline constexpr uint32_t kMuxPermissionDenied = 0x80000002;
inline constexpr uint32_t kMuxFailure = 0x80000003;
inline constexpr uint32_t kMuxExitMessage = 0x80000004;
inline constexpr uint32_t kMuxSessionOpened = 0x80000006;
inline constexpr uint32_t kMuxVersion = 4;

// Pure: the client's messages, each framed as the protocol wants (u32 length, u32 type, body; big-endian).
std::string mux_hello();
std::string mux_new_session(uint32_t request_id, std::string_view command);

// One message of the master's, taken from the front of `buffer` (nullopt while incomplete). `reason` is set for
// MUX_S_FAILURE and MUX_S_PERMISSION_DENIED, `value` is the exit value of MUX_S_EXIT_MESSAGE.
struct MuxReply {
  uint32_t type = 0;
  uint32_t value = 0;
  std::string reason;
};
std::optional<MuxReply> take_mux_reply(std::string& buffer);

// A session running `command` on the master listening at `control_path`; nullopt when no master of this user
// answers there (the caller then starts an ssh client). The descriptors are the session's, as from a spawned
// client; `process` is empty and `master_control` holds the control connection.
std::optional<AgentProcess> open_master_session(const std::string& control_path, const std::string& command);

// How end_failed_master_session() (transport.h) words a refusal: the ssh transport's restart() looks for it and
// then starts an ssh client of its own, without connection sharing (the master would refuse again: its server's
// MaxSessions, say).
inline constexpr std::string_view kMasterRefused = "the ssh master refused the session: ";

// Why the master refused the session on `control` (its MUX_S_FAILURE / PERMISSION_DENIED reason, "" if it sent
// none), waiting up to `wait_ms` for it. For error messages only: reads what is there and returns.
std::string master_refusal(int control, int wait_ms);

}  // namespace muster::transport
