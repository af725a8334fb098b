// Shared by the transports: runs `argv` with its stdin, stdout and stderr on three new pipes and returns
// the process with the head's ends of them.
#pragma once

#include "transport/transport.h"

namespace muster::transport {

// `new_session`: setsid instead of a new process group (ssh clients: see SpawnOptions::new_session).
Result<AgentProcess> spawn_with_pipes(const std::vector<std::string>& argv, int parent_death_signal,
                                     bool new_session = false);

}  // namespace muster::transport
