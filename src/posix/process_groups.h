// Whether a process group still belongs to us. A worker's group id is its leader's pid; once the leader is reaped
// and every other member has exited, the kernel may give that number to an unrelated process, which can then lead
// a group of the same id (setsid, setpgid): a kill(-pgid) sent later would hit it. The agent and its guard
// therefore signal a group whose leader they no longer hold only if the group is still in their own session.
//
// Why the session is the test: a process group never spans sessions, and a process can leave its session only by
// starting a new one (setsid), never join another. The agent runs in a session that holds nothing else of the
// user's (sshd makes one per connection, slurmstepd one per job step, and the local transport starts the agent as
// a session leader), so a group with a member in that session was made by the agent's own descendants; a group
// that reused the id after ours died out, made by anyone else, is in another session.
// What is left is the instant between the check and the kill, which no interface closes for groups.
#pragma once

#include <set>

namespace muster::posix {

// getsid(0).
int current_session_id();

// Every process group with at least one process (zombies included) in session `sid`: one scan of /proc, whose
// cost grows with every process on the machine (1,024 virtual nodes' agents each scanning ~10,000 processes took
// seconds of CPU); groups_still_in_session scans only when it must.
std::set<int> groups_in_session(int sid);

// The groups of `candidates` that still have a process in session `sid`, for the agent and its guard: those that
// no longer exist (group_exists) are dropped without a scan, and /proc is scanned once only if any remain.
std::set<int> groups_still_in_session(const std::set<int>& candidates, int sid);

// Whether any process (zombies included) is in process group `pgid`, whoever's: kill(-pgid, 0) is not ESRCH. A group
// that does not exist needs no signal; one that does must still be in the session before it gets one.
bool group_exists(int pgid);

}  // namespace muster::posix
