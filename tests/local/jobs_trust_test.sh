#!/usr/bin/env bash
# jobs_trust_test.sh — what `stop`, `logs`, `attach` and `ps` believe of a job record (issue 27, item 9):
#   1. `launch --job-id ../x` is refused (exit 2) and writes nothing outside the registry.
#   2. A planted run directory whose job.json names another process of the user's (a `sleep`, with its real start
#      time and this boot's id) as the head, with no socket: `muster stop DIR` refuses and signals nothing.
#   3. A job.json its group (or anyone) can write is no record: refused, nothing signalled.
#   4. A record claiming 2,000,000,000 ranks: `muster logs` refuses it at once (under a 1 GB address-space limit,
#      where allocating a reader per rank would die).
#   5. The registry first: a run directory whose job.json claims a registered job's id is read as the registry's
#      record (the run directory's pid is never signalled).
#   6. (root) A socket served by another user's process, named in a record of the user's: `muster stop` refuses
#      to talk to it (SO_PEERCRED on the client side) and sends it nothing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

export XDG_STATE_HOME=$WORK/state  # a job registry of this test's own
export XDG_CACHE_HOME=$WORK/cache
BOOT_ID=$(cat /proc/sys/kernel/random/boot_id)

# plant_record DIR PID [RANKS] [SOCKET] [JOB_ID]: a job.json in DIR that says the job is running with head PID.
plant_record() {
  local dir=$1 pid=$2 ranks=${3:-1} socket=${4:-$WORK/no-such.sock} id=${5:-planted-$RANDOM} start
  start=$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$pid/stat")
  mkdir -p "$dir"
  cat >"$dir/job.json" <<EOF
{"job_id": "$id", "run_dir": "$dir", "socket": "$socket", "pid": $pid, "pid_start": $start,
 "boot_id": "$BOOT_ID", "started_unix_ms": 1, "ended_unix_ms": 0, "exit_code": -1, "nodes": 1,
 "ranks": $ranks, "command": "planted", "detached": true, "error": "", "layout": []}
EOF
  chmod 600 "$dir/job.json"
}

# alive PID: running (a zombie, killed but not reaped by this shell yet, is not).
alive() { local state; state=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $state != Z* ]]; }

sleeper() {  # starts a `sleep` of ours that SIGINT ends (a script's background job would ignore it); SLEEPER: its pid
  /usr/bin/python3 -c 'import os, signal; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp("sleep", ["sleep", "300"])' &
  SLEEPER=$!
  BG_PIDS+=("$SLEEPER")
  is_sleep() { [[ $(cat "/proc/$SLEEPER/comm" 2>/dev/null) == sleep ]]; }
  wait_until 10 is_sleep || fail "the sleeper did not start"  # (SIGINT is ignored until python's exec)
}

# --- 1. --job-id ../x --------------------------------------------------------------------------------------------
rc=0
"$MUSTER" launch -w localhost --job-id ../x -- true >out 2>&1 || rc=$?
assert_eq 2 "$rc" "exit code of launch --job-id ../x"
assert_contains "$(cat out)" "--job-id: '../x' is not a job id" "launch --job-id ../x"
[[ ! -e $XDG_STATE_HOME/muster/x.json && ! -e $WORK/x ]] || fail "launch --job-id ../x wrote outside the registry"
rc=0
"$MUSTER" stop ../x >out 2>&1 || rc=$?
assert_eq 2 "$rc" "exit code of stop ../x"
echo "  --job-id ../x refused"

# --- 2. a planted record naming another process of the user's ---------------------------------------------------
sleeper
plant_record "$WORK/planted" "$SLEEPER"
rc=0
"$MUSTER" stop --no-wait "$WORK/planted" >out 2>&1 || rc=$?
sleep 0.2
alive "$SLEEPER" || fail "muster stop signalled another process of the user's named by a planted record: $(cat out)"
assert_eq 2 "$rc" "exit code of stop with a planted record: $(cat out)"
assert_contains "$(cat out)" "is not its head" "stop with a planted record"
echo "  a planted record's pid (a sleep of the user's) was not signalled"

# --- 3. a record its group can write is no record ------------------------------------------------------------------
plant_record "$WORK/groupw" "$SLEEPER"
chmod 660 "$WORK/groupw/job.json"
rc=0
"$MUSTER" stop --no-wait "$WORK/groupw" >out 2>&1 || rc=$?
alive "$SLEEPER" || fail "muster stop signalled the pid of a group-writable record"
assert_eq 2 "$rc" "exit code of stop with a group-writable record"
assert_contains "$(cat out)" "is not a muster job record of yours" "stop with a group-writable record"
echo "  a group-writable job.json refused"

# --- 4. counts from a record are bounded ---------------------------------------------------------------------------
mkdir -p "$WORK/huge"
plant_record "$WORK/huge" "$SLEEPER" 2000000000
rc=0
(ulimit -v 1000000 && timeout 60 "$MUSTER" logs "$WORK/huge") >out 2>&1 || rc=$?
assert_eq 2 "$rc" "exit code of logs with a record of 2,000,000,000 ranks: $(tail -c 300 out)"
assert_contains "$(cat out)" "is not a muster job record of yours" "logs with a record of 2,000,000,000 ranks"
echo "  a record of 2,000,000,000 ranks refused by logs"

# --- 5. the registry first -----------------------------------------------------------------------------------------
job registered
"$MUSTER" launch -q -w localhost --job-id "$JOB" --run-dir "$WORK/registered" -- true >out 2>&1 || fail "launch: $(cat out)"
plant_record "$WORK/claims" "$SLEEPER" 1 "$WORK/no-such.sock" "$JOB"
out=$("$MUSTER" stop "$WORK/claims" 2>&1) || fail "stop of a run directory claiming an ended job's id: $out"
assert_contains "$out" "job $JOB is not running: exit 0" "stop of a run directory claiming a registered id"
alive "$SLEEPER" || fail "muster stop signalled the pid of a run directory whose id the registry knows"
echo "  a run directory claiming a registered job's id is read as the registry's record"

# --- 6. the control socket's peer is checked by the client ---------------------------------------------------------
if [[ $(id -u) == 0 ]]; then
  mkdir -p "$WORK/other"
  chmod 755 "$WORK" "$WORK/other"
  chown 65534:65534 "$WORK/other"
  # Another user's listener: it writes what it receives into a file (the test reads it as root).
  setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); s.settimeout(60)
import os; os.chmod(sys.argv[1], 0o777)
while True:
    c, _ = s.accept(); c.settimeout(5)
    try:
        data = c.recv(65536)
    except OSError:
        data = b""
    open(sys.argv[2], "ab").write(data + b"\n")
    c.close()' "$WORK/other/head.sock" "$WORK/other/received" &
  BG_PIDS+=($!)
  wait_until 10 test -S "$WORK/other/head.sock" || fail "the other user's listener did not start"
  # A record of ours, with the head's pid our own sleeper, naming their socket.
  plant_record "$WORK/theirs" "$SLEEPER" 1 "$WORK/other/head.sock"
  rc=0
  "$MUSTER" stop --no-wait "$WORK/theirs" >out 2>&1 || rc=$?
  assert_contains "$(cat out)" "served by another user's process" "stop with another user's socket"
  sleep 0.5
  # (It may connect, to learn who listens: it must send nothing.)
  ! grep -q '"op"' "$WORK/other/received" 2>/dev/null ||
    fail "muster stop sent a request to another user's listener: $(cat "$WORK/other/received")"
  alive "$SLEEPER" || fail "muster stop signalled a sleep"
  echo "  another user's control socket refused by the client"
else
  echo "  not root: the client-side peer check (another user's socket) is not tested here"
fi
