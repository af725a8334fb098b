// This user's jobs on this machine, so that another shell finds a running job by its id: one JSON file per job
// in $XDG_STATE_HOME/muster/jobs (default ~/.local/state/muster/jobs, created 0700), written by the job's head
// when it starts and again when it ends, and a `job.json` with the same record in the job's run directory.
// The record names the head's control socket (control_server.h) and the head's pid with its start time and the
// machine's boot id, so a head that died without saying so is recognised (the pid is gone or belongs to another
// process, or the machine rebooted) and never shown as running.
// A record is only believed when it is this user's own regular file that neither group nor others can write
// (read without following a link, non-blocking), with a valid job id and bounded counts; a job is looked up in
// the registry first, and a run directory's job.json is taken only when the registry has no record of its id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace muster::head {

// The ranks of one node of the job: first_rank .. first_rank + count - 1 (`muster logs --node`).
struct NodeRanks {
  std::string name;
  int first_rank = 0;
  int count = 0;
};

struct JobRecord {
  std::string job_id;
  std::string run_dir;        // absolute
  std::string socket;         // the head's control socket
  int pid = 0;                // the head
  uint64_t pid_start = 0;     // its start time (/proc), to tell a reused pid
  std::string boot_id;        // the machine's boot (/proc/sys/kernel/random/boot_id): set by write_job_record
  int64_t started_unix_ms = 0;
  int64_t ended_unix_ms = 0;  // 0 while running
  int exit_code = -1;         // once ended; -1 with `error` when it never started
  std::string error;          // why the job never started
  int nodes = 0, ranks = 0;
  std::string command;        // as typed, for listings
  std::vector<NodeRanks> layout;  // node by node rank
  bool detached = false;          // launched with --detach (the head's output is <run_dir>/head.log)
  int attempt = 0;                // the running (or last) attempt: 0, then 1 after a restart, ...
  std::string excluded;           // nodes left out of the job, folded (`muster ps`)
};

enum class JobState { running, ended, head_died };

// The directory of the records (created 0700 when `create`); refuses one that others can write.
Result<std::string> jobs_dir(bool create);

// The most ranks (and nodes) a record may claim: what `muster logs` allocates for is bounded by it.
inline constexpr int kMaxRecordRanks = 1 << 20;

// Writes the record (atomically) to the registry and as <run_dir>/job.json, with this boot's id; a job id that
// job_id_problem (util/random.h) refuses is an error.
Result<void> write_job_record(const JobRecord& record);

// Every record in the registry, newest first.
std::vector<JobRecord> list_job_records();

// A job by id, by run directory (its job.json), or, for an empty `which`, the newest running one (the newest
// of any state with `any_state`).
Result<JobRecord> find_job(const std::string& which, bool any_state = false);

JobState job_state(const JobRecord& record);
// Whether the record's head is a process this user may signal: alive with the recorded start time, on this boot
// of this machine, this user's, and a muster (its command name). Never true for a record from another machine
// sharing the run directory, or naming another program of the user's.
bool is_own_head(const JobRecord& record);
const char* job_state_name(JobState state);  // "running", "ended", "head died"

// A control socket path for a new job, short enough for a unix socket address.
Result<std::string> new_socket_path();

}  // namespace muster::head
