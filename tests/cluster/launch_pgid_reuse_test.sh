#!/usr/bin/env bash
# launch_pgid_reuse_test.sh — the agent and its guard never kill a process group id that was reused. On a node
# (its own PID namespace, where /proc/sys/kernel/ns_last_pid picks the next pid), a 2-rank job runs: rank 0
# prints its pid X (= its process group id) and exits; once the agent has reaped it and the id is free, the test
# starts an unrelated `setsid sleep` that gets pid X, so it leads a new group X in its own session: exactly a
# reused id. Then rank 1 ends, the job finishes normally, and the agent's final SIGKILL of its workers' groups
# (and the guard's, when the agent exits) must spare the unrelated group.
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

launch_setup 1
readonly DIR=/tmp/pgid-reuse
on() { "$TESTBED" exec node1 sh -c "$1"; }
VICTIM=
add_cleanup 'on "[ -z \"$VICTIM\" ] || kill -KILL $VICTIM 2>/dev/null; true"'

# Rank 0 records its pid and exits; rank 1 (python: it forks nothing, so no pid is taken while the test aims at X)
# waits for the go file.
# shellcheck disable=SC2016  # expanded by the workers' shell
readonly WORKER='mkdir -p '"$DIR"'; if [ "$RANK" = 0 ]; then echo $$ > '"$DIR"'/rank0.tmp && mv '"$DIR"'/rank0.tmp '"$DIR"'/rank0; exit 0; fi
exec /usr/bin/python3 -c "import os, time
while not os.path.exists(\"'"$DIR"'/go\"): time.sleep(0.05)"'

attempt() {
  local out=$SCRATCH/job.out x got
  on "rm -rf '$DIR'"
  start_muster "$out" -w node1 --nproc-per-node 2 --run-dir "$SCRATCH/run" -- sh -c "$WORKER"
  wait_until 20 on "test -s '$DIR/rank0'" || fail "rank 0 did not record its pid: $(cat "$out")"
  x=$(on "cat '$DIR/rank0'")
  # Rank 0 is reaped by the agent and its group is empty: pid X is free again.
  wait_until 10 on "! test -e /proc/$x" || fail "pid $x (rank 0) is still there"
  # One process in the node takes pid X: ns_last_pid = X-1, then a single fork (no other fork in between).
  got=$(on "echo \$(( $x - 1 )) > /proc/sys/kernel/ns_last_pid; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo \$!")
  VICTIM=$got
  on "touch '$DIR/go'"
  wait_exit "$MUSTER_PID" 30
  ((EXIT_RC == 0)) || fail "the job exited $EXIT_RC: $(cat "$out")"
  if [[ $got != "$x" ]]; then
    step "the unrelated process got pid $got, not $x (something else forked): again"
    on "kill -KILL $got 2>/dev/null; true"
    VICTIM=
    return 1
  fi
  sleep_s 0.5  # the guard acts when the agent has exited
  on "kill -0 $x" || fail "the agent or its guard killed process group $x, reused by an unrelated process after rank 0 ended"
  assert_eq "$x $x" "$(on "ps -o pgid=,sid= -p $x" | xargs)" "process group and session of the process with pid $x"
  step "process group $x (rank 0's, reused by an unrelated setsid process) survived the job's end"
}

for try in 1 2 3; do
  if attempt; then step "PASS"; exit 0; fi
done
fail "could not give the unrelated process rank 0's pid in 3 tries"
