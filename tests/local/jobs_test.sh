#!/usr/bin/env bash
# jobs_test.sh — detached jobs on this machine (local transport): `launch --detach`, `ps`, `logs`, `attach`, `stop`.
#   1. Errors before the job starts still reach the terminal and the exit code: a missing hostfile (exit 2, nothing
#      recorded), --detach inside a Slurm allocation (exit 2: the job would end with the allocation), an unreachable node (ssh to a closed loopback port: exit 1 with ssh's reason; ps: "not started"),
#      a command that cannot start (the job ends before it runs: exit 1 and head.log's report on stderr).
#   2. `launch --detach` from a shell that then exits: the id comes back at once (a $(...) capture does not wait
#      for the job), the job keeps running in its own session with stdin /dev/null, ps shows it running with its
#      nodes, ranks and run dir, and later with its exit code; head.log holds muster's messages, not the ranks' lines.
#   3. `logs`: one rank byte for byte as rank-N.log; several ranks prefixed [node:rank]; --node; -f follows a rank
#      until the job ends and has printed all of it (byte-exact against rank-1.log at the end).
#   4. `attach` on a pseudo-terminal, then Ctrl-C (typed into the terminal): it detaches (exit 0) and the job goes
#      on; `attach --stop` + Ctrl-C stops it (the job's exit, 130); `attach` to the end of a job exits with its code.
#   5. `stop`: SIGINT to every rank (a rank's handler runs), ps says exit 130; a second `stop` kills ranks that
#      ignore SIGINT at once (long before --grace); `stop --kill` likewise.
#   6. `stop` of a job still reaching its nodes (ssh through a proxy that never answers) ends it at once; the waiting
#      `launch --detach` exits 130.
#   7. SIGKILL to the detached head: its ranks are gone soon after (the agent sees the head go), ps says "head died",
#      never "running".
#   8. A slow attach client (connected, reading nothing) never holds the job up: the job's 30 MB burst finishes, the
#      client is dropped and told so (its last event), head.log says so, rank-0.log has every byte.
#   9. A detached job with a spare (three virtual nodes, --nnodes 2): after vnode2's agent is killed, ps shows the
#      job running in attempt 2 with vnode2 excluded (table and --json) while the spare runs its rank; stop ends it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

export XDG_STATE_HOME=$WORK/state  # a job registry of this test's own
export XDG_CACHE_HOME=$WORK/cache
ON_PTY=$LOCAL_TEST_DIR/on_pty.py

# On exit (a failed assertion): no detached head of this test keeps running (lib.sh's cleanup kills the ranks).
kill_detached_heads() {
  local id record pid
  for id in "${JOB_IDS[@]}"; do
    record=$WORK/muster-runs/$id/job.json
    [[ -f $record ]] || continue
    pid=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["pid"] if not r["ended_unix_ms"] else "")' \
      "$record" 2>/dev/null) || continue
    [[ -z $pid ]] || kill -KILL "$pid" 2>/dev/null || true
  done
}
trap 'rc=$?; kill_detached_heads; (exit $rc); cleanup_local_test' EXIT

# record_field JOB FIELD: a field of the job's record (job.json in its run directory).
record_field() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "muster-runs/$1/job.json" "$2"
}
# ps_state JOB: the job's state as `muster ps --json` says.
ps_state() {
  "$MUSTER" ps --all --json | python3 -c '
import json, sys
for job in json.load(sys.stdin):
    if job["job_id"] == sys.argv[1]:
        print(job["state"] + (" %d" % job["exit_code"] if job["state"] == "ended" else ""))' "$1"
}
state_is() { [[ $(ps_state "$1") == "$2" ]]; }
has_job_processes() { [[ -n $(job_processes "$1") ]]; }
# plain FILE: what a terminal showed, without carriage returns and colour codes.
plain() { sed -e 's/\r//g' -e 's/\x1b\[[0-9;]*m//g' "$1"; }

# detach JOB ARG...: `muster launch --detach --job-id JOB ARG...`; fails unless it prints JOB.
detach() {
  local id=$1 out
  shift
  out=$("$MUSTER" launch --detach --job-id "$id" "$@" 2>"$WORK/$id.err") ||
    fail "launch --detach $id: exit $?: $(cat "$WORK/$id.err")"
  assert_eq "$id" "$out" "what launch --detach prints on stdout"
}

errors_before_start() {
  local out rc=0
  out=$("$MUSTER" launch --detach -H no-such-hostfile -- true 2>&1) || rc=$?
  assert_eq 2 "$rc" "exit code of a detached launch with a missing hostfile"
  assert_contains "$out" "no-such-hostfile" "the missing hostfile's error"
  [[ ! -d $XDG_STATE_HOME/muster/jobs ]] || [[ -z $(ls "$XDG_STATE_HOME/muster/jobs") ]] ||
    fail "a job was recorded for a launch that failed before starting: $(ls "$XDG_STATE_HOME/muster/jobs")"

  rc=0
  out=$(SLURM_JOB_ID=5 SLURM_JOB_NODELIST=node7 SLURM_TASKS_PER_NODE=1 "$MUSTER" launch --detach -- true 2>&1) ||
    rc=$?
  assert_eq 2 "$rc" "exit code of --detach inside a Slurm allocation"
  assert_contains "$out" "muster submit" "--detach inside a Slurm allocation: what to do instead"

  job unreachable
  rc=0
  out=$("$MUSTER" launch --detach --job-id "$JOB" --transport ssh -w 127.0.0.1 --ssh-option Port=1 \
    --connect-timeout 5 -- true 2>&1) || rc=$?
  assert_eq 1 "$rc" "exit code of a detached launch whose node is unreachable"
  assert_contains "$out" "127.0.0.1" "the unreachable node's error"
  assert_contains "$out" "Connection refused" "ssh's reason"
  assert_eq "ended -1" "$(ps_state "$JOB")" "ps of a job that never started"
  assert_contains "$("$MUSTER" ps)" "not started" "ps table of a job that never started"

  job nostart
  rc=0
  out=$("$MUSTER" launch --detach --job-id "$JOB" -- /nonexistent/program 2>&1) || rc=$?
  assert_eq 1 "$rc" "exit code of a detached launch whose command cannot start"
  assert_contains "$out" "cannot run '/nonexistent/program'" "the report from head.log"
  assert_contains "$out" "the job ended before all its ranks started" "the parent's summary"
  echo "  errors before the start: on the terminal, exit 2 / 1 / 1"
}

# A worker that prints a line every 50 ms for LINES lines.
ticker() { echo "i=0; while [ \$i -lt $1 ]; do i=\$((i+1)); echo \"rank \$RANK line \$i\"; sleep 0.05; done"; }

detach_from_exiting_shell() {
  job shell
  local start out
  start=$EPOCHREALTIME
  # The shell runs the launch and exits; the caller's $(...) must not wait for the job (it holds no copy of the
  # capture's pipe).
  out=$(bash -c '"$1" launch --detach --job-id "$2" --nproc-per-node 2 -- sh -c "$3" 2>/dev/null; exit 0' \
    shell "$MUSTER" "$JOB" "$(ticker 200)")
  assert_faster 8 "$start" "launch --detach in a shell that exits"
  assert_eq "$JOB" "$out" "the job id"
  local head
  head=$(record_field "$JOB" pid)
  [[ $(awk '{print $6}' "/proc/$head/stat") == "$head" ]] || fail "the detached head does not lead its own session"
  [[ $(readlink "/proc/$head/fd/0") == /dev/null ]] || fail "the detached head's stdin is not /dev/null"
  [[ $(readlink "/proc/$head/fd/1") == "$WORK/muster-runs/$JOB/head.log" ]] ||
    fail "the detached head's stdout is $(readlink "/proc/$head/fd/1"), not its head.log"
  wait_until 5 has_job_processes "$JOB" || fail "no process of the detached job runs"
  assert_eq "running" "$(ps_state "$JOB")" "ps state of the detached job"
  local table
  table=$("$MUSTER" ps)
  grep -qE "^$JOB +running " <<<"$table" || fail "ps table: $JOB not running: $table"
  assert_contains "$table" "$WORK/muster-runs/$JOB" "ps table: the run directory"
  [[ $(grep -F "$JOB" <<<"$table") =~ running\ +1\ +2\  ]] || fail "ps: 1 node, 2 ranks expected: $table"
  wait_until 30 state_is "$JOB" "ended 0" || fail "the detached job did not end with exit 0: $(ps_state "$JOB")"
  assert_eq 200 "$(grep -c '^rank 1 line' "muster-runs/$JOB/rank-1.log")" "lines in rank-1.log"
  assert_not_contains "$(cat "muster-runs/$JOB/head.log")" "rank 1 line" "head.log (muster's messages only)"
  assert_contains "$(cat "muster-runs/$JOB/head.log")" "all 2 ranks finished" "head.log's summary"
  assert_contains "$("$MUSTER" ps)" "exit 0" "ps after the end"
  echo "  detached from an exiting shell: ran to exit 0, ps followed it"
}

logs_command() {
  job logs
  detach "$JOB" --nproc-per-node 2 -- sh -c "$(ticker 60)"
  local follow=$WORK/follow.out start
  start=$EPOCHREALTIME
  "$MUSTER" logs "$JOB" -f --rank 1 >"$follow" 2>&1 &
  local follower=$!
  BG_PIDS+=("$follower")
  wait_until 10 grep -q "rank 1 line 3$" "$follow" || fail "logs -f printed nothing of rank 1: $(cat "$follow")"
  wait_bg "$follower" 30
  assert_eq 0 "$BG_RC" "exit code of logs -f"
  assert_eq "ended 0" "$(ps_state "$JOB")" "the job's state when logs -f ended"
  assert_file_bytes "muster-runs/$JOB/rank-1.log" "$follow" "logs -f --rank 1 against rank-1.log"
  "$MUSTER" logs "$JOB" --rank 0 >"$WORK/r0.out"
  assert_file_bytes "muster-runs/$JOB/rank-0.log" "$WORK/r0.out" "logs --rank 0"
  local all
  all=$("$MUSTER" logs "$JOB")
  assert_eq 120 "$(grep -c . <<<"$all")" "lines of logs (both ranks)"
  assert_contains "$all" "[localhost:0] rank 0 line 60" "logs: rank 0 prefixed"
  assert_contains "$all" "[localhost:1] rank 1 line 60" "logs: rank 1 prefixed"
  assert_eq 120 "$("$MUSTER" logs "$JOB" --node localhost | grep -c .)" "lines of logs --node localhost"
  assert_eq 120 "$("$MUSTER" logs "$JOB" --node 0 | grep -c .)" "lines of logs --node 0"
  local out rc=0
  out=$("$MUSTER" logs "$JOB" --node node9 2>&1) || rc=$?
  assert_eq 2 "$rc" "exit code of logs --node with a node the job does not have"
  assert_contains "$out" "its nodes: localhost" "logs --node error"
  echo "  logs: raw rank, prefixed ranks, --node, -f to the end (byte-exact)"
}

attach_command() {
  job attach
  detach "$JOB" --nproc-per-node 2 -- sh -c "$(ticker 400)"
  local rc=0
  python3 "$ON_PTY" "$WORK/attach.out" 30 --ctrl-c-after "rank 1 line 5" -- "$MUSTER" attach "$JOB" || rc=$?
  assert_eq 0 "$rc" "exit code of attach after Ctrl-C"
  local seen
  seen=$(plain "$WORK/attach.out")
  assert_contains "$seen" "attached to job $JOB (2 ranks on 1 node)" "attach's first line"
  assert_contains "$seen" "[localhost:1] rank 1 line 5" "a rank's line on the attached terminal"
  assert_contains "$seen" "detached from job $JOB; it goes on" "attach's last line"
  sleep 0.5
  assert_eq "running" "$(ps_state "$JOB")" "the job after attach's Ctrl-C"
  has_job_processes "$JOB" || fail "the job's ranks are gone after attach's Ctrl-C"

  # Ctrl-C with --stop stops it as on the head.
  rc=0
  python3 "$ON_PTY" "$WORK/attach-stop.out" 40 --ctrl-c-after "muster: attached" -- \
    "$MUSTER" attach --stop "$JOB" || rc=$?
  assert_eq 130 "$rc" "exit code of attach --stop after Ctrl-C (the job's)"
  seen=$(plain "$WORK/attach-stop.out")
  assert_contains "$seen" "muster stop: stopping all ranks" "the head's notice on the attached terminal"
  assert_contains "$seen" "stopped by muster stop; exit status per rank" "the exit table on the attached terminal"
  assert_eq "ended 130" "$(ps_state "$JOB")" "ps after attach --stop"
  wait_until 5 no_job_processes "$JOB" || fail "ranks left after attach --stop: $(describe_job_processes "$JOB")"

  # Attached to the end: exits with the job's code; --ranks filters.
  job attach-end
  # Rank 1 ends first (rank 0 waits for it): under load the two tickers drift, and rank 0 failing first would stop
  # rank 1 before its last line.
  detach "$JOB" --nproc-per-node 2 -- sh -c "$(ticker 40); [ \$RANK = 1 ] || sleep 30; exit 3"
  rc=0
  "$MUSTER" attach "$JOB" --ranks 1 >"$WORK/attach-end.out" 2>&1 || rc=$?
  assert_eq 3 "$rc" "exit code of attach when the job ends (its code)"
  seen=$(cat "$WORK/attach-end.out")
  assert_contains "$seen" "[localhost:1] rank 1 line 40" "rank 1 in attach --ranks 1"
  assert_not_contains "$seen" "[localhost:0]" "rank 0 in attach --ranks 1"
  assert_contains "$seen" "the job failed; exit status per rank" "the failure report on attach"
  echo "  attach: Ctrl-C detaches (job runs on), --stop stops it (130), to the end: the job's code"
}

stop_command() {
  job stop
  detach "$JOB" --nproc-per-node 2 -- sh -c 'trap "echo rank $RANK got SIGINT; exit 0" INT; while :; do sleep 0.1; done'
  wait_until 5 has_job_processes "$JOB" || fail "the job did not start"
  local out start
  out=$("$MUSTER" stop "$JOB" 2>&1) || fail "muster stop: $out"
  assert_contains "$out" "stopping job $JOB" "stop's first line"
  assert_contains "$out" "job $JOB ended: exit 130" "stop's last line"
  assert_eq "ended 130" "$(ps_state "$JOB")" "ps after stop"
  assert_contains "$(cat "muster-runs/$JOB/rank-1.log")" "rank 1 got SIGINT" "rank 1's SIGINT handler"
  wait_until 5 no_job_processes "$JOB" || fail "ranks left after stop: $(describe_job_processes "$JOB")"
  out=$("$MUSTER" stop "$JOB" 2>&1) || fail "stop of an ended job: $out"
  assert_contains "$out" "is not running: exit 130" "stop of an ended job"

  # Ranks that ignore SIGINT, --grace 60: the second stop kills them at once.
  job stop-twice
  detach "$JOB" --grace 60 --nproc-per-node 2 -- sh -c 'trap "" INT; while :; do sleep 0.1; done'
  wait_until 5 has_job_processes "$JOB" || fail "the job did not start"
  "$MUSTER" stop --no-wait "$JOB" 2>/dev/null || fail "stop --no-wait failed"
  sleep 1
  assert_eq "running" "$(ps_state "$JOB")" "a job whose ranks ignore SIGINT, 1 s after stop (--grace 60)"
  start=$EPOCHREALTIME
  out=$("$MUSTER" stop "$JOB" 2>&1) || fail "second stop: $out"
  assert_faster 15 "$start" "the second stop (ranks killed at once, not after --grace 60)"
  assert_contains "$out" "killing the ranks of job $JOB now" "the second stop's message"
  assert_eq "ended 130" "$(ps_state "$JOB")" "ps after the second stop"

  job stop-kill
  detach "$JOB" --grace 60 --nproc-per-node 2 -- sh -c 'trap "" INT; while :; do sleep 0.1; done'
  wait_until 5 has_job_processes "$JOB" || fail "the job did not start"
  start=$EPOCHREALTIME
  out=$("$MUSTER" stop --kill "$JOB" 2>&1) || fail "stop --kill: $out"
  assert_faster 15 "$start" "stop --kill"
  assert_contains "$(cat "muster-runs/$JOB/head.log")" "muster stop: killing all ranks now" "head.log after --kill"
  wait_until 5 no_job_processes "$JOB" || fail "ranks left after stop --kill: $(describe_job_processes "$JOB")"
  echo "  stop: graceful (SIGINT handler ran), second stop and --kill at once"
}

stop_while_connecting() {
  job connecting
  # ssh through a proxy that never answers: the head stays in its connect phase (up to --connect-timeout 60).
  start_bg "$WORK/connecting.out" launch --detach --job-id "$JOB" --transport ssh -w 127.0.0.1 \
    --ssh-option 'ProxyCommand=sleep 60' --connect-timeout 60 -- true
  local launcher=$BG_PID start out
  wait_until 10 state_is "$JOB" running || fail "the connecting job is not in ps: $(cat "$WORK/connecting.out")"
  start=$EPOCHREALTIME
  out=$("$MUSTER" stop "$JOB" 2>&1) || fail "stop of a job that is still connecting: $out"
  assert_faster 10 "$start" "stop of a job that is still connecting"
  wait_bg "$launcher" 10
  assert_eq 130 "$BG_RC" "exit code of launch --detach stopped while connecting"
  assert_contains "$(cat "$WORK/connecting.out")" "interrupted before the job started" "launch --detach's output"
  assert_eq "ended 130" "$(ps_state "$JOB")" "ps after the stop"
  echo "  stop while the nodes are still being reached: the launch ends (130)"
}

head_killed() {
  job killed
  detach "$JOB" --nproc-per-node 2 -- sh -c 'sleep 60 & sleep 60 & wait'
  wait_until 5 has_job_processes "$JOB" || fail "the job did not start"
  local head start
  head=$(record_field "$JOB" pid)
  start=$EPOCHREALTIME
  kill -KILL "$head"
  wait_until 5 no_job_processes "$JOB" ||
    fail "ranks left 5 s after the detached head was killed: $(describe_job_processes "$JOB")"
  echo "  SIGKILL to the head: no rank left after $(elapsed_since "$start") s"
  assert_eq "head died" "$(ps_state "$JOB")" "ps of a job whose head was killed"
  grep -qE "^$JOB +head died " <<<"$("$MUSTER" ps)" || fail "ps table: $JOB not 'head died': $("$MUSTER" ps)"
  local out rc=0
  out=$("$MUSTER" attach "$JOB" 2>&1) || rc=$?
  assert_eq 2 "$rc" "attach to a job whose head died"
  assert_contains "$out" "is not running (head died)" "attach's error"
}

slow_attach_client() {
  job slow
  # 30 MB in 300,000 lines at once, then 20 s of quiet so the job is still there when the client reads. The burst
  # starts only once the client is attached (it creates $WORK/attached after the head's hello): the head writes
  # 30 MB faster than a client could attach after the job started.
  rm -f "$WORK/attached"
  detach "$JOB" -- sh -c 'until [ -e "$0" ]; do sleep 0.05; done; head -c 30000000 /dev/zero | tr "\0" x | fold -w 99; sleep 20' \
    "$WORK/attached"
  local socket
  socket=$(record_field "$JOB" socket)
  python3 - "$socket" "$WORK/muster-runs/$JOB/head.log" "$WORK/attached" >"$WORK/slow.out" 2>&1 <<'EOF' || fail "slow client: $(cat "$WORK/slow.out")"
import json, socket, sys, time
sock = socket.socket(socket.AF_UNIX)
sock.connect(sys.argv[1])
sock.sendall(b'{"op": "attach"}\n')
hello = b""
while not hello.endswith(b"\n"):  # the head's hello: this client is attached
    hello += sock.recv(1)
open(sys.argv[3], "w").close()
deadline = time.monotonic() + 60
while "dropped" not in open(sys.argv[2]).read():  # read nothing until the head gives up on this client
    assert time.monotonic() < deadline, "the head did not drop a client that reads nothing"
    time.sleep(0.2)
data = b""
sock.settimeout(30)
while True:
    chunk = sock.recv(1 << 20)
    if not chunk:
        break
    data += chunk
lines = data.split(b"\n")
assert lines[-1] == b"", "the stream does not end with a whole line"
last = json.loads(lines[-2])
print("received", len(data), "bytes; last event:", last)
assert last["e"] == "dropped", last
EOF
  assert_contains "$(cat "$WORK/slow.out")" "fell more than 4 MiB behind the job and was dropped" "the dropped client's last event"
  assert_contains "$(cat "muster-runs/$JOB/head.log")" "an attached client fell more than 4 MiB behind" "head.log"
  # The whole burst reaches the log while the job still runs (it sleeps 20 s after it).
  burst_logged() { [[ $(stat -c %s "muster-runs/$JOB/rank-0.log") == 30303030 ]]; }
  wait_until 60 burst_logged ||
    fail "rank-0.log has $(stat -c %s "muster-runs/$JOB/rank-0.log") bytes, not 30303030 (30 MB, a newline per 99)"
  assert_eq running "$(ps_state "$JOB")" "the job after its burst"
  "$MUSTER" stop "$JOB" >/dev/null 2>&1 || fail "stop of the slow client's job"
  echo "  a client that reads nothing was dropped and told so; the job went on"
}

# 9. ------------------------------------------------------------------------------------------------------------------
detached_restart_on_spare() {
  job spare
  rm -f up.*
  detach "$JOB" -w 'vnode[1-3]' --transport local --nnodes 2 --max-restarts 2 --grace 1 -- sh -c \
    'echo $$ > "up.$MUSTER_NODE.$MUSTER_ATTEMPT"; exec sleep 60'
  first_up() { [[ -s $WORK/up.vnode1.0 && -s $WORK/up.vnode2.0 ]]; }
  wait_until 30 first_up || fail "the detached job's first attempt did not start on vnode1 and vnode2"
  local pid
  pid=$(agent_of "$(cat "$WORK/up.vnode2.0")") || fail "no agent above vnode2's worker"
  kill -KILL "$pid"
  spare_up() { [[ -e $WORK/up.vnode3.1 && -e $WORK/up.vnode1.1 ]]; }
  wait_until 60 spare_up || fail "the second attempt did not start on vnode1 and the spare vnode3: $(ls up.*)"
  local table json
  table=$("$MUSTER" ps)
  assert_contains "$table" "running, attempt 2" "ps during the second attempt"
  assert_contains "$table" "excluded: vnode2" "ps during the second attempt"
  json=$("$MUSTER" ps --json | python3 -c '
import json, sys
for job in json.load(sys.stdin):
    if job["job_id"] == sys.argv[1]:
        print(job["state"], job["attempt"], job["excluded"])' "$JOB")
  assert_eq "running 1 vnode2" "$json" "ps --json during the second attempt (attempt counts from 0)"
  "$MUSTER" stop "$JOB" >/dev/null 2>&1 || fail "stop of the restarted detached job"
  state_is_ended() { [[ $(ps_state "$JOB") == "ended "* ]]; }
  wait_until 30 state_is_ended || fail "the stopped job is still $(ps_state "$JOB")"
  wait_until 10 no_job_processes "$JOB" || fail "processes left: $(describe_job_processes "$JOB")"
  echo "  a detached job restarted on its spare: ps shows the attempt and the excluded node"
}

errors_before_start
detach_from_exiting_shell
logs_command
attach_command
stop_command
stop_while_connecting
head_killed
slow_attach_client
detached_restart_on_spare
