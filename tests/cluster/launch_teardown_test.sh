#!/usr/bin/env bash
# launch_teardown_test.sh — gang teardown of `muster launch` on 4 nodes x 2 workers when something fails:
#   a. `kill -9` of one DDP worker on node3 mid-training: the head exits 137 (128+SIGKILL of the root cause)
#      within 5 s of the kill, names that rank on node3 as the root cause, and 2 s after the head exited no
#      process of the job is left on any node (nor any `muster agent`).
#   c. node3's cable pulled (`testbed partition`: silence, no FIN/RST) with --heartbeat-timeout 3: the head
#      exits non-zero naming node3 within heartbeat timeout + 2 s; the job is gone from the other nodes by
#      then, and node3's own workers — which never hear from the head again — by 2 s later (checked while
#      node3 is still cut off, so its agent must act on its own, and again after heal).
#   b. node2 crashes (`testbed kill-node`) with --heartbeat-timeout 3: the head exits non-zero naming node2
#      within heartbeat timeout + 2 s, and the job is gone from every other node by then.
# b and c use shell workers (`sleep` grandchildren included) so they start fast and cannot fail on their own.
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=4 PER_NODE=2
readonly HB_TIMEOUT_S=3
readonly KILL_BOUND_MS=5000                            # (a) kill -9 of a worker -> head exit
readonly LOST_BOUND_MS=$(((HB_TIMEOUT_S + 2) * 1000))  # (b, c) node lost -> head exit, job gone elsewhere
# Shell workers: a line once up, then a grandchild that the process-group teardown must reach as well.
readonly SHELL_WORKER=(sh -c 'echo up; sleep 100 & wait')
readonly SHELL_WORKER_PROCS=2

# The [rank node ... <- root cause] row of the exit table in FILE.
root_cause_rows() { grep -E '<- root cause' "$1" || true; }

# start_shell_job NAME: the shell workers on every node; returns once all of their processes run.
start_shell_job() {
  JOB=teardown-$1-$$
  OUT=$SCRATCH/$1.out
  start_muster "$OUT" --job-id "$JOB" --run-dir "$SCRATCH/$1" --heartbeat-timeout "$HB_TIMEOUT_S" \
    -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" -- "${SHELL_WORKER[@]}"
  local want=$((NODES * PER_NODE * SHELL_WORKER_PROCS))
  all_started() { (($(count_job_processes "$JOB") == want)); }
  wait_until 20 all_started ||
    fail "$1: expected $want job processes, have: $(all_job_processes "$JOB"); output: $(cat "$OUT")"
  running "$MUSTER_PID" || fail "$1: muster exited early: $(cat "$OUT")"
}

# assert_head_exit WHAT T0_US BOUND_MS: the head already exited non-zero, within BOUND_MS of T0_US.
assert_head_lost_exit() {
  local what=$1 t0=$2 bound=$3 ms
  ms=$(ms_between "$t0" "$EXIT_US")
  step "$what: head exited $EXIT_RC, $(fmt_ms "$ms") s after the fault (bound $(fmt_ms "$bound") s)"
  ((EXIT_RC != 0 && EXIT_RC != 124)) || fail "$what: head exit $EXIT_RC; output: $(cat "$OUT")"
  ((ms <= bound)) || fail "$what: head took $ms ms (> $bound ms) to exit; output: $(cat "$OUT")"
}

# (a)
worker_killed() {
  JOB=teardown-kill9-$$
  OUT=$SCRATCH/kill9.out
  step "a. DDP 4x2, kill -9 of a worker on node3"
  start_muster "$OUT" --job-id "$JOB" --run-dir "$SCRATCH/kill9" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    -- /usr/bin/python3 examples/ddp_train.py --step-sleep 0.05 --steps 100000
  wait_until 40 grep -qE '^\[node1:0\] step +5 ' "$OUT" ||
    fail "DDP job did not reach step 5 in 40 s: $(cat "$OUT")"
  running "$MUSTER_PID" || fail "muster exited early: $(cat "$OUT")"
  local victim rank t0 ms rows
  victim=$(job_processes_on node3 "$JOB" | awk '/ddp_train\.py/ {print $1; exit}')
  [[ -n $victim ]] || fail "no DDP worker found on node3: $(all_job_processes "$JOB")"
  rank=$(proc_env node3 "$victim" RANK)
  [[ $rank == 4 || $rank == 5 ]] || fail "worker $victim on node3 has RANK='$rank', expected 4 or 5"
  t0=$(now_us)
  "$TESTBED" exec node3 kill -KILL "$victim"
  wait_exit "$MUSTER_PID" 15
  ms=$(ms_between "$t0" "$EXIT_US")
  step "a. kill -9 of rank $rank (pid $victim on node3) -> head exit $EXIT_RC after $(fmt_ms "$ms") s"
  assert_eq 137 "$EXIT_RC" "exit status after kill -9 of rank $rank (output: $(tail -n 20 "$OUT"))"
  ((ms < KILL_BOUND_MS)) || fail "head took $ms ms (>= $KILL_BOUND_MS ms) to exit after the kill"
  assert_contains "$(cat "$OUT")" "rank $rank on node3 failed" "head output"
  rows=$(root_cause_rows "$OUT")
  [[ $(grep -c . <<<"$rows") == 1 && $rows =~ ^\ +$rank\ +node3\ .*SIGKILL ]] ||
    fail "exit table: expected one root-cause row for rank $rank on node3 (SIGKILL), got: '$rows'"
  assert_no_job_processes "$JOB" 2
  step "a. no job process on any node $GONE_MS ms after the head exited"
  assert_no_agents 2
}

# (c)
node_partitioned() {
  step "c. shell workers 4x2, partition node3 (heartbeat timeout ${HB_TIMEOUT_S}s)"
  start_shell_job partition
  local t0 left
  t0=$(now_us)
  "$TESTBED" partition node3
  wait_exit "$MUSTER_PID" 15
  assert_head_lost_exit "c. partition of node3" "$t0" "$LOST_BOUND_MS"
  assert_contains "$(cat "$OUT")" "node3 lost" "head output after node3's partition"
  [[ $(root_cause_rows "$OUT") =~ ^\ +[45]\ +node3\  ]] ||
    fail "c. root cause is not a rank of node3: $(root_cause_rows "$OUT")"
  left=$(((t0 + LOST_BOUND_MS * 1000 - $(now_us)) / 1000))
  assert_no_job_processes "$JOB" "$(fmt_ms $((left > 0 ? left : 0)))" node1 node2 node4
  step "c. job gone from node1, node2, node4 $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the partition"
  left=$(((t0 + (LOST_BOUND_MS + 2000) * 1000 - $(now_us)) / 1000))
  assert_no_job_processes "$JOB" "$(fmt_ms $((left > 0 ? left : 0)))" node3
  step "c. node3's workers gone (still partitioned) $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the partition"
  "$TESTBED" heal node3
  assert_no_job_processes "$JOB" 0 node3
  assert_no_agents 2
}

# (b)
node_killed() {
  step "b. shell workers 4x2, kill-node node2 (heartbeat timeout ${HB_TIMEOUT_S}s)"
  start_shell_job killnode
  local t0 left
  t0=$(now_us)
  "$TESTBED" kill-node node2
  wait_exit "$MUSTER_PID" 15
  assert_head_lost_exit "b. crash of node2" "$t0" "$LOST_BOUND_MS"
  assert_contains "$(cat "$OUT")" "node2 lost" "head output after node2 crashed"
  [[ $(root_cause_rows "$OUT") =~ ^\ +[23]\ +node2\  ]] ||
    fail "b. root cause is not a rank of node2: $(root_cause_rows "$OUT")"
  left=$(((t0 + LOST_BOUND_MS * 1000 - $(now_us)) / 1000))
  assert_no_job_processes "$JOB" "$(fmt_ms $((left > 0 ? left : 0)))" node1 node3 node4
  step "b. job gone from node1, node3, node4 $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the crash"
  assert_no_agents 2
}

main() {
  require_torch
  launch_setup "$NODES"
  worker_killed
  node_partitioned
  node_killed  # last: a dead node needs a new testbed
  step "PASS"
}

main
