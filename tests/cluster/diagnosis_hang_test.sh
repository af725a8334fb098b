#!/usr/bin/env bash
# diagnosis_hang_test.sh — stalls found and explained on the simulated cluster (3 nodes x 2 ranks, real DDP):
#   1. `muster stack` on a healthy running job returns a Python stack for every rank (ranks 0-5), grouped, and
#      the run directory holds all of them.
#   2. Rank 3 (node2) sleeps in stuck_in_data_loader() while the others wait in all_reduce; with
#      --hang-timeout 20 the head reports the stall within 20 + 15 s of the job's last output, names rank 3 on
#      node2 with its function apart from the others' all_reduce, exits 124, leaves no job process on any node,
#      and the run directory holds the stacks (stacks-1.txt, manifest.json "hangs").
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly SCRIPT=tests/cluster/scripts/hang_ddp.py
launch_setup 3

# XDG_STATE_HOME: the job registry (and so the control socket) of this test alone.
export XDG_STATE_HOME=$SCRATCH/state


healthy_stack() {
  local out=$SCRATCH/healthy.out job=healthy-$$ stacks
  step "1. a healthy 3x2 DDP job; muster stack while it trains"
  start_muster "$out" --job-id "$job" --run-dir "$SCRATCH/healthy" -w "node[1-3]" --nproc-per-node 2 \
    -- /usr/bin/python3 "$SCRIPT" --stuck-rank -1
  wait_until 60 grep -qs "rank 5 on node3: warmed up" "$SCRATCH/healthy/rank-5.log" ||
    fail "the healthy job did not warm up: $(cat "$out")"
  for r in 0 1 2 3 4; do grep -q "warmed up" "$SCRATCH/healthy/rank-$r.log" || fail "rank $r did not warm up"; done
  # The ranks rest together in rest_between_steps() about 1 s of every step, but a snapshot can still catch them
  # inside a step (under load, a step takes longer and the signals reach the ranks at different times): up to 5
  # snapshots, and one of them must be a single group of all six.
  local try
  for try in 1 2 3 4 5; do
    stacks=$(XDG_CACHE_HOME=$MUX_HOME "$MUSTER" stack "$job" 2>&1) || fail "muster stack failed: $stacks"
    echo "$stacks" >&2
    [[ $stacks == *"ranks 0-5 (6) on node[1-3] (3): rest_between_steps"* ]] && break
  done
  assert_contains "$stacks" "ranks 0-5 (6) on node[1-3] (3): rest_between_steps" \
    "muster stack: one group of all six ranks resting (they run the same loop), in one of 5 snapshots"
  assert_contains "$stacks" "(hang_ddp.py:" "muster stack: the ranks' own frames"
  step "muster stack: all six ranks in one group at snapshot $try"
  local file
  file=$(ls "$SCRATCH"/healthy/stacks-"$try".txt)
  for r in 0 1 2 3 4 5; do
    grep -q "=== rank $r on node$((r / 2 + 1)) ===" "$file" || fail "$file: no stack of rank $r"
  done
  (($(grep -c 'File ".*hang_ddp.py", line [0-9]* in main' "$file") >= 6)) || fail "$file: not every rank's main: $(cat "$file")"
  step "muster stack: every rank's Python stack, in $file"
  kill -INT "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 20
  assert_no_job_processes "$job" 5
}

stall() {
  local out=$SCRATCH/stall.out job=stall-$$ run=$SCRATCH/stall t_last t_report
  step "2. rank 3 (node2) stops in stuck_in_data_loader(); --hang-timeout 20"
  start_muster "$out" --job-id "$job" --run-dir "$run" --hang-timeout 20 -w "node[1-3]" --nproc-per-node 2 \
    -- /usr/bin/python3 "$SCRIPT" --stuck-rank 3
  wait_exit "$MUSTER_PID" 120
  cat "$out" >&2
  assert_eq 124 "$EXIT_RC" "exit code of a job muster stopped as stalled"
  # The stall must be reported within the timeout + 15 s of the last progress (the last output line).
  t_last=$(stat -c %Y "$run"/rank-*.log | sort -n | tail -1)
  t_report=$(stat -c %Y "$run/stacks-1.txt")
  ((t_report - t_last <= 35)) || fail "stall reported $((t_report - t_last)) s after the last output (bound 35 s)"
  step "stall reported $((t_report - t_last)) s after the job's last output (bound 20 + 15 s)"
  assert_contains "$(cat "$out")" "no rank has made progress for 2" "the stall notice"
  assert_contains "$(cat "$out")" "rank 3 on node2: stuck_in_data_loader (hang_ddp.py:" "the odd rank, its node and function"
  assert_contains "$(cat "$out")" "<- the odd one out" "the odd rank is marked"
  assert_contains "$(cat "$out")" "ranks 0-2,4-5 (5) on node[1-3] (3): " "the other five ranks, grouped"
  grep -q "ranks 0-2,4-5 (5) on node\[1-3\] (3): .*all_reduce" "$out" || fail "the five waiting ranks are not shown in all_reduce: $(cat "$out")"
  grep -q "stuck_in_data_loader" "$run/stacks-1.txt" || fail "no stacks in the run directory"
  python3 - "$run/manifest.json" <<'PY' || fail "manifest.json: no hang record with rank 3 apart"
import json, sys
m = json.load(open(sys.argv[1]))
groups = m["hangs"][0]["groups"]
assert m["exit_code"] == 124, m["exit_code"]
assert any(g["ranks"] == [3] and g["odd"] and "stuck_in_data_loader" in g["where"] for g in groups), groups
PY
  assert_no_job_processes "$job" 5
  step "no job process left on any node ${GONE_MS} ms after the head exited"
  local why
  why=$("$MUSTER" why "$run") || fail "muster why failed: $why"
  assert_contains "$why" "rank 3 on node2: stuck_in_data_loader" "muster why names the stalled rank and its node"
}

healthy_stack
stall
echo "PASS: $TEST_NAME"
