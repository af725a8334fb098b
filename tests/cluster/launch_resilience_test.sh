#!/usr/bin/env bash
# launch_resilience_test.sh — a job that survives a bad node (issue 24). Five testbed nodes, `--nnodes 4`: the job
# runs on node1-4 and node5 is the spare. A deterministic checkpointing DDP job (examples/ddp_checkpoint.py:
# checkpoint every 2 steps, atomically; resume from it) must end 0 with exactly the parameters of a run that was
# never interrupted, the lost node named as excluded and the spare as joined, when:
#   a. node3 crashes mid-run (`testbed kill-node`);
#   b. node2's cable is pulled mid-run (`testbed partition`: silence; the heartbeat timeout finds it);
#   c. in a launch tree (--fanout 2: node1 starts node2 and node3's agents), node1 crashes: node2 and node3 are
#      lost only with their carrier — reconnected from the head, never excluded — and MASTER_ADDR moves off node1.
# Nothing of the job is left on any node afterwards. Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"
require_torch

launch_setup 5
SHARED=$(mktemp -d "$REPO/.muster-test-ckpt.XXXXXX")  # the checkout is on every node: a shared directory
add_cleanup "rm -rf '$SHARED'"
TRAIN=(/usr/bin/python3 "$REPO/examples/ddp_checkpoint.py" --steps 40 --every 2 --step-sleep 0.25)
COMMON=(--nproc-per-node 1 --max-restarts 3 --grace 2 --heartbeat-timeout 3 --connect-timeout 5)

checksums() { grep -ho "checksum [0-9a-f]*" "$1"/rank-*.log | sort -u; }

step "reference: the job uninterrupted on node[1-4]"
muster_launch --run-dir "$SHARED/ref-run" -w 'node[1-4]' --nproc-per-node 1 -- "${TRAIN[@]}" --dir "$SHARED/ref" \
  >"$SCRATCH/ref.out" 2>&1 || fail "the reference run failed: $(tail -n 20 "$SCRATCH/ref.out")"
REFERENCE=$(checksums "$SHARED/ref-run")
[[ $(wc -l <<<"$REFERENCE") == 1 && -n $REFERENCE ]] || fail "the reference ranks disagree: $REFERENCE"

# run_with_fault NAME FAULT_CMD [LAUNCH ARGS...]: the job on node[1-5] --nnodes 4; once rank 0 is at step 10,
# FAULT_CMD runs; the job must end 0 with the reference's checksum on every rank. Sets OUT.
run_with_fault() {
  local name=$1 fault=$2
  shift 2
  local run=$SHARED/$name-run
  OUT=$SCRATCH/$name.out
  start_muster "$OUT" --run-dir "$run" -w 'node[1-5]' --nnodes 4 "${COMMON[@]}" "$@" -- "${TRAIN[@]}" --dir "$SHARED/$name"
  at_step_10() { grep -q "attempt 0 step 10 " "$run/rank-0.log" 2>/dev/null; }
  wait_until 120 at_step_10 || fail "$name: the job did not reach step 10: $(tail -n 20 "$OUT")"
  local fault_us
  fault_us=$(now_us)
  eval "$fault"
  wait_exit "$MUSTER_PID" 240
  ((EXIT_RC == 0)) || fail "$name: the job exited $EXIT_RC: $(grep -v '^\[node' "$OUT" | head -n 60)"
  local resumed
  resumed=$(grep -h "attempt 1 step" "$run/rank-0.log" | head -n 1)
  [[ -n $resumed ]] || fail "$name: no step of a second attempt: $(tail -n 20 "$OUT")"
  step "$name: ended 0 after $(fmt_ms "$(ms_between "$fault_us" "$EXIT_US")") s; resumed: $resumed"
  local sums
  sums=$(checksums "$run")
  [[ $sums == "$REFERENCE" ]] || fail "$name: checksums '$sums' differ from the uninterrupted run's '$REFERENCE'"
}

only() { [[ -z ${MUSTER_TEST_ONLY:-} || ,$MUSTER_TEST_ONLY, == *,$1,* ]]; }  # MUSTER_TEST_ONLY=c: one scenario

if only a; then
step "a. node3 crashes mid-run"
run_with_fault crash '"$TESTBED" kill-node node3'
assert_contains "$(cat "$OUT")" "node3 lost (" "the decision line"
assert_contains "$(cat "$OUT")" "): excluded; attempt 2 of 4 on node[1-2,4-5] (node5 from the spares)" "the decision line"
assert_no_job_processes "$(grep -o '"job_id": *"[^"]*"' "$SHARED/crash-run/manifest.json" | head -n 1 | cut -d'"' -f4)" 5 \
  node1 node2 node4 node5
launch_setup 5  # node3 back (a dead node is recreated)
fi

if only b; then
step "b. node2's cable pulled mid-run"
run_with_fault partition '"$TESTBED" partition node2'
"$TESTBED" heal node2
assert_contains "$(cat "$OUT")" "node2 lost (no heartbeat for " "the decision line"
assert_contains "$(cat "$OUT")" "): excluded; attempt 2 of 4 on node[1,3-5] (node5 from the spares)" "the decision line"
fi

if only c; then
step "c. a launch tree (--fanout 2): node1, which started node2 and node3's agents, crashes"
run_with_fault tree '"$TESTBED" kill-node node1' --fanout 2
assert_contains "$(cat "$OUT")" "node1 lost (" "the decision line"
assert_contains "$(cat "$OUT")" "): excluded; attempt 2 of 4 on node[2-5] (node5 from the spares)" "the decision line"
[[ $(cat "$OUT") != *"node2 lost ("* ]] || fail "tree: node2, lost only with its carrier, was called lost: $(cat "$OUT")"
manifest=$SHARED/tree-run/manifest.json
python3 - "$manifest" <<'EOF' || fail "tree: the manifest's attempts: $(cat "$manifest" | head -c 2000)"
import json, sys
m = json.load(open(sys.argv[1]))
second = m["attempts"][1]
assert second["nodes"] == ["node2", "node3", "node4", "node5"], second["nodes"]
assert second["master_addr"] != m["attempts"][0]["master_addr"], "MASTER_ADDR did not move off node1"
assert list(m["excluded"]) == ["node1"], m["excluded"]
EOF
fi
step "PASS"
