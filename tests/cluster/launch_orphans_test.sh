#!/usr/bin/env bash
# launch_orphans_test.sh — `muster launch` leaves no process behind on any node when the head or an agent
# dies. 3 nodes x 2 workers: local rank 0 is `sh -c 'sleep 60 & sleep 60 & wait'` (two grandchildren that
# must die too), local rank 1 a python worker with a multiprocessing child. In each case no process carrying
# the job's MUSTER_JOB_ID may remain on any node 2 s later, nor any muster process (agent, guard) 1 s after:
#   1. SIGKILL to the head (no chance to clean up): counted from the kill; no `muster agent` left either.
#   2. SIGINT to the head (what Ctrl-C does): the head exits 130 within --grace + 3 s; counted from the
#      head's exit. The sleeps of a non-interactive sh ignore SIGINT, so this needs the SIGKILL after grace.
#   3. SIGKILL to the `muster agent` on node2: counted from the kill (node2's workers and their children as
#      much as the other nodes' ones); the head exits non-zero naming node2. (Last, so that 1 and 2 are
#      still checked when it fails.)
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3 PER_NODE=2 GRACE_S=1
# Rank 0 of each node: sh + 2 sleeps; rank 1: python with a multiprocessing child (a DataLoader worker, say).
# The python worker says when it is ready.
readonly PY_WORKER='
import multiprocessing, time
multiprocessing.set_start_method("fork")
multiprocessing.Process(target=time.sleep, args=(60,)).start()
print("python worker up", flush=True)
time.sleep(60)
'
# shellcheck disable=SC2016  # expanded by the worker's sh
readonly WORKER=(sh -c 'if [ "$LOCAL_RANK" = 0 ]; then sleep 60 & sleep 60 & wait; else
  exec /usr/bin/python3 -c "$1"; fi' worker "$PY_WORKER")
readonly PROCS_PER_NODE=5

# start_job NAME: the job on every node; returns once every worker process (grandchildren included) runs.
start_job() {
  JOB=orphans-$1-$$
  OUT=$SCRATCH/$1.out
  start_muster "$OUT" --job-id "$JOB" --run-dir "$SCRATCH/$1" --grace "$GRACE_S" \
    -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" -- "${WORKER[@]}"
  local want=$((NODES * PROCS_PER_NODE))
  all_started() { (($(count_job_processes "$JOB") == want && $(grep -c "python worker up" "$OUT") == NODES)); }
  wait_until 20 all_started ||
    fail "$1: expected $want job processes, have:"$'\n'"$(all_job_processes "$JOB")"$'\n'"output: $(cat "$OUT")"
  running "$MUSTER_PID" || fail "$1: muster exited early: $(cat "$OUT")"
}

head_sigkill() {
  step "1. SIGKILL to the head"
  start_job head-kill
  local t0
  t0=$(now_us)
  kill -KILL "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 5
  assert_no_job_processes "$JOB" 2
  step "1. no job process on any node $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the head's SIGKILL"
  assert_no_agents 1
}

agent_sigkill() {
  step "3. SIGKILL to the agent on node2"
  start_job agent-kill
  local agents t0
  agents=$(agent_pids_on node2)
  [[ $(grep -c . <<<"$agents") == 1 ]] || fail "3. expected one muster agent on node2, got: '$agents'"
  t0=$(now_us)
  "$TESTBED" exec node2 kill -KILL "$agents"
  # Measured from the kill, over all nodes: node2's grandchildren as much as everything else.
  assert_no_job_processes "$JOB" 2
  step "3. no job process on any node $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the agent's SIGKILL"
  wait_exit "$MUSTER_PID" 10
  ((EXIT_RC != 0 && EXIT_RC != 124)) || fail "3. head exit $EXIT_RC after node2's agent was killed: $(cat "$OUT")"
  assert_contains "$(cat "$OUT")" "node2" "head output after node2's agent was killed"
  step "3. head exited $EXIT_RC $(fmt_ms "$(ms_between "$t0" "$EXIT_US")") s after the kill"
  assert_no_agents 1
}

head_sigint() {
  step "2. SIGINT to the head (--grace $GRACE_S)"
  start_job head-int
  local t0 ms bound=$(((GRACE_S + 3) * 1000))
  t0=$(now_us)
  kill -INT "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 15
  ms=$(ms_between "$t0" "$EXIT_US")
  step "2. head exited $EXIT_RC $(fmt_ms "$ms") s after SIGINT"
  assert_eq 130 "$EXIT_RC" "exit status after SIGINT (output: $(tail -n 20 "$OUT"))"
  ((ms <= bound)) || fail "2. head took $ms ms (> $bound ms) to exit after SIGINT"
  assert_no_job_processes "$JOB" 2
  step "2. no job process on any node $GONE_MS ms after the head exited"
  assert_no_agents 1
}

main() {
  launch_setup "$NODES"
  head_sigkill
  head_sigint
  agent_sigkill
  step "PASS"
}

main
