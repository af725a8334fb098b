#!/usr/bin/env bash
# launch_detach_test.sh — a detached DDP job on the testbed (2 nodes x 2 ranks, torch + gloo, over ssh):
#   1. `muster launch --detach` typed into an interactive shell on a pseudo-terminal, which then exits (its terminal
#      goes away): the job id comes back, and the job keeps training (every rank's step count keeps rising).
#   2. `muster ps` shows it running, 2 nodes, 4 ranks, its run directory.
#   3. `muster logs -f --rank 1` follows rank 1 (node1) while it trains; it ends by itself when the job ends, with
#      every byte of rank-1.log.
#   4. `muster attach` on a pseudo-terminal shows the ranks of both nodes live; Ctrl-C typed there detaches it
#      (exit 0) and the job trains on.
#   5. Another user cannot reach the job's control socket: `setpriv --reuid nobody` gets EACCES from the 0700
#      directory; with every directory on the way and the socket opened up, the head still refuses it (SO_PEERCRED):
#      the connection is closed unanswered, and the job runs on.
#   6. `muster stop`: every rank gets SIGINT (each prints that it stops), the job ends (exit 130), nothing of the job
#      and no muster process is left on any node; ps says exit 130; `muster logs --node node2` (and `--node 1`)
#      prints the lines of node2's ranks only.
#   7. SIGKILL to a second detached job's head: the agents see it go and stop their ranks (nothing left on any node),
#      and ps says "head died".
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / torch).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=2 PER_NODE=2 WORLD=4
ON_PTY=$CLUSTER_TEST_DIR/../local/on_pty.py

muster_cmd() { XDG_CACHE_HOME=$MUX_HOME "$MUSTER" "$@"; }
record_field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1/job.json" "$2"; }
ps_state() {
  muster_cmd ps --all --json | python3 -c '
import json, sys
for job in json.load(sys.stdin):
    if job["job_id"] == sys.argv[1]:
        print(job["state"] + (" %d" % job["exit_code"] if job["state"] == "ended" else ""))' "$1"
}
# last_step RUN RANK: the highest step rank RANK has logged (-1 before its first).
last_step() {
  local n
  n=$(grep -oE "^rank $2 step [0-9]+" "$1/rank-$2.log" 2>/dev/null | tail -n 1 | awk '{print $4}')
  echo "${n:--1}"
}
# training RUN: every rank's step count rises within 10 s (from what it is now).
training() {
  local run=$1 r before=() deadline
  for ((r = 0; r < WORLD; r++)); do before[r]=$(last_step "$run" "$r"); done
  deadline=$(($(now_us) + 10000000))
  for ((r = 0; r < WORLD; r++)); do
    until (($(last_step "$run" "$r") > before[r])); do
      (($(now_us) < deadline)) || fail "rank $r stopped training (step ${before[r]}): $(tail -n 3 "$run/rank-$r.log")"
      sleep_s 0.2
    done
  done
}
all_ranks_stepping() { local r; for ((r = 0; r < WORLD; r++)); do (($(last_step "$1" "$r") >= 0)) || return 1; done; }

# On exit (a failed assertion): no detached head of this test keeps running (its agents then stop their ranks).
DETACHED_RUNS=()
kill_detached_heads() {
  local run pid
  for run in "${DETACHED_RUNS[@]}"; do
    pid=$(record_field "$run" pid 2>/dev/null) || continue
    [[ $(record_field "$run" ended_unix_ms 2>/dev/null) == 0 ]] && kill -KILL "$pid" 2>/dev/null || true
  done
}

# detach_job NAME: the DDP job launched with --detach from a shell on a pseudo-terminal that then exits.
detach_job() {
  JOB=detach-$1-$$
  RUN=$SCRATCH/$1
  DETACHED_RUNS+=("$RUN")
  local rc=0
  python3 "$ON_PTY" "$SCRATCH/$1.launch.out" 120 -- bash --norc --noprofile -c '"$@"; echo "shell exits ($?)"' \
    launch-shell env XDG_CACHE_HOME="$MUX_HOME" "$MUSTER" launch --detach --job-id "$JOB" --run-dir "$RUN" \
    "${MUSTER_SSH[@]}" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    -- /usr/bin/python3 tests/cluster/scripts/ddp_steps.py --step-sleep 0.2 || rc=$?
  assert_eq 0 "$rc" "the shell that launched $JOB (output: $(cat "$SCRATCH/$1.launch.out"))"
  assert_contains "$(cat "$SCRATCH/$1.launch.out")" "$JOB"$'\r\n' "the job id printed by launch --detach"
  assert_contains "$(cat "$SCRATCH/$1.launch.out")" "shell exits (0)" "the launching shell's end"
  wait_until 60 all_ranks_stepping "$RUN" || fail "$JOB: not every rank trains: $(tail -n 2 "$RUN"/rank-*.log)"
}

detached_ddp() {
  step "1. launch --detach from an interactive shell that exits"
  detach_job main
  local head
  head=$(record_field "$RUN" pid)
  running "$head" || fail "the detached head (pid $head) is not running"
  training "$RUN"
  step "1. $JOB trains after its shell exited: steps $(last_step "$RUN" 0) $(last_step "$RUN" 1) $(last_step "$RUN" 2) $(last_step "$RUN" 3)"
  local on_node
  for node in node1 node2; do
    on_node=$(job_processes_on "$node" "$JOB" | grep -c ddp_steps.py || true)
    assert_eq "$PER_NODE" "$on_node" "ranks of $JOB running on $node"
  done

  step "2. muster ps"
  local table
  table=$(muster_cmd ps)
  grep -qE "^$JOB +running +$NODES +$WORLD +[0-9smhd]+ +$RUN\$" <<<"$table" ||
    fail "ps does not show $JOB running on $NODES nodes with $WORLD ranks in $RUN: $table"

  step "3. muster logs -f --rank 1"
  local follow=$SCRATCH/follow.out
  muster_cmd logs "$JOB" -f --rank 1 >"$follow" 2>&1 &
  local follower=$!
  follow_has_steps() { (($(grep -c '^rank 1 step' "$follow") >= $1)); }
  wait_until 20 follow_has_steps 3 || fail "logs -f --rank 1 printed no steps: $(cat "$follow")"
  local seen
  seen=$(grep -c '^rank 1 step' "$follow")
  wait_until 20 follow_has_steps $((seen + 5)) || fail "logs -f --rank 1 stopped following at $seen steps"
  running "$follower" || fail "logs -f ended while the job runs"
  step "3. logs -f --rank 1 follows: $(grep -c '^rank 1 step' "$follow") steps so far"

  step "4. muster attach, then Ctrl-C"
  local rc=0 shown
  python3 "$ON_PTY" "$SCRATCH/attach.out" 60 --ctrl-c-after "rank 3 step" -- \
    env XDG_CACHE_HOME="$MUX_HOME" "$MUSTER" attach "$JOB" || rc=$?
  assert_eq 0 "$rc" "attach's exit code after Ctrl-C"
  shown=$(sed -e 's/\r//g' -e 's/\x1b\[[0-9;]*m//g' "$SCRATCH/attach.out")
  assert_contains "$shown" "attached to job $JOB ($WORLD ranks on $NODES nodes)" "attach's first line"
  grep -qE '^\[node2:3\] rank 3 step [0-9]+ loss' <<<"$shown" || fail "attach showed no line of rank 3 on node2: $shown"
  assert_contains "$shown" "detached from job $JOB; it goes on" "attach's last line"
  training "$RUN"
  assert_eq running "$(ps_state "$JOB")" "the job after attach's Ctrl-C"
  step "4. attached, detached with Ctrl-C; $JOB trains on"

  other_user "$JOB"

  step "6. muster stop"
  local out t0
  t0=$(now_us)
  out=$(muster_cmd stop "$JOB" 2>&1) || fail "muster stop: $out"
  assert_contains "$out" "job $JOB ended: exit 130" "stop's last line"
  step "6. stopped in $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s"
  for ((r = 0; r < WORLD; r++)); do
    assert_contains "$(cat "$RUN/rank-$r.log")" "rank $r stopping at step" "rank $r's SIGINT handler"
  done
  assert_no_job_processes "$JOB" 5
  assert_no_agents 5
  assert_eq "ended 130" "$(ps_state "$JOB")" "ps after stop"
  wait_exit "$follower" 10
  assert_eq 0 "$EXIT_RC" "logs -f's exit code once the job ended"
  cmp -s "$RUN/rank-1.log" "$follow" || fail "logs -f --rank 1 differs from rank-1.log: $(diff "$RUN/rank-1.log" "$follow" | head)"
  step "6. nothing left on any node; logs -f ended with all $(wc -l <"$follow") lines of rank-1.log"

  # logs --node on a real second node, by name and by index: its two ranks' lines, prefixed, and nothing else.
  local node2 by_index expected
  node2=$(muster_cmd logs "$JOB" --node node2)
  by_index=$(muster_cmd logs "$JOB" --node 1)
  expected=$(($(grep -c '' "$RUN/rank-2.log") + $(grep -c '' "$RUN/rank-3.log")))
  assert_eq "$expected" "$(grep -cE '^\[node2:[23]\] ' <<<"$node2")" "logs --node node2: lines of ranks 2 and 3"
  assert_eq "$expected" "$(grep -c '' <<<"$node2")" "logs --node node2: no other line"
  assert_eq "$node2" "$by_index" "logs --node 1 (node2 by index)"
  step "6. logs --node node2 (and --node 1): the $expected lines of ranks 2 and 3"
}

other_user() {
  local job=$1 socket out
  step "5. another user and the control socket"
  socket=$(record_field "$RUN" socket)
  [[ $(stat -c %a "$(dirname "$socket")") == 700 ]] || fail "the socket's directory is $(stat -c %a "$(dirname "$socket")"), not 700"
  [[ $(stat -c %U "$(dirname "$socket")") == "$(id -un)" ]] || fail "the socket's directory is not the user's"
  local probe='
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect:", e.strerror); sys.exit(0)
try:
    s.sendall(b"{\"op\": \"status\"}\n")
    s.settimeout(10)
    answer = s.recv(4096)
except (BrokenPipeError, ConnectionResetError):  # closed before or after the request arrived
    answer = b""
print("answer:", answer.decode() if answer else "none, closed")'
  out=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 -c "$probe" "$socket" 2>&1)
  assert_eq "connect: Permission denied" "$out" "nobody connecting to the job's socket"
  # Open every directory on the way and the socket itself: only SO_PEERCRED stands between nobody and the head.
  local dir modes=() paths=()
  dir=$(dirname "$socket")
  while [[ $dir != / ]]; do paths+=("$dir"); modes+=("$(stat -c %a "$dir")"); dir=$(dirname "$dir"); done
  local socket_mode
  socket_mode=$(stat -c %a "$socket")
  chmod o+x "${paths[@]}"
  chmod 0666 "$socket"
  out=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 -c "$probe" "$socket" 2>&1) || true
  for ((i = 0; i < ${#paths[@]}; i++)); do chmod "${modes[i]}" "${paths[i]}"; done
  chmod "$socket_mode" "$socket"
  assert_eq "answer: none, closed" "$out" "nobody connecting through opened directories (the head must close it unanswered)"
  out=$(python3 -c "$probe" "$socket" 2>&1)
  assert_contains "$out" '"ok":true' "the job's own user asking for its status"
  assert_eq running "$(ps_state "$job")" "the job after another user's attempts"
  step "5. nobody: EACCES from the 0700 directory, refused by SO_PEERCRED past it; the owner is answered"
}

head_sigkill() {
  step "7. SIGKILL to a detached head"
  detach_job killed
  local head t0
  head=$(record_field "$RUN" pid)
  t0=$(now_us)
  kill -KILL "$head"
  assert_no_job_processes "$JOB" 10
  step "7. no rank of $JOB on any node $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after SIGKILL to its head"
  assert_no_agents 5
  assert_eq "head died" "$(ps_state "$JOB")" "ps after the head was killed"
  grep -qE "^$JOB +head died " <<<"$(muster_cmd ps)" || fail "ps table does not say 'head died': $(muster_cmd ps)"
}

main() {
  require_torch
  command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"
  launch_setup "$NODES"
  add_cleanup kill_detached_heads  # runs before launch_setup's hooks remove SCRATCH
  export XDG_STATE_HOME=$SCRATCH/state  # this test's own job registry
  detached_ddp
  head_sigkill
  step "PASS"
}

main
