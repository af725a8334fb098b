#!/usr/bin/env bash
# launch_tree_test.sh — `muster launch --fanout 2` on 7 nodes that can ssh to each other: the head starts the
# agents of node1 and node5 only, and they start the rest (depth 3):
#
#     head ── node1 ── node2 ── node3          inner nodes: node1, node2, node5
#          │        └─ node4
#          └─ node5 ── node6
#                   └─ node7
#
# Everything the flat star guarantees holds through the tree:
#   1. output: every rank-N.log of 7x2 ranks is byte-identical to what the rank wrote; the manifest records 2
#      head connections and depth 3, and every node's own host name.
#   2. gang teardown: kill -9 of the DDP worker on node3 (3 levels down): the head exits 137 within 5 s naming
#      that rank on node3, and nothing of the job is left on any node 2 s later.
#   3. SIGKILL to the agent of inner node2: node2 and node3 (which node2 carried) are lost, named; no job
#      process anywhere 2 s after the kill.
#   4. node2's cable pulled (--heartbeat-timeout 3): node1 notices, the head names node2 within 5 s, the job is
#      gone from the other nodes then, and from node2 and node3 (cut off with it) 2 s later.
#   5. node3's agent stopped (SIGSTOP: silent, connection open): node2 notices its silence and the head names
#      node3 within 5 s.
#   6. SIGINT to the head: exit 130, nothing left; SIGKILL to the head: nothing left, no agent either.
#   7. node3 refuses node2's key: the head reaches node3 itself (3 connections) and says why; the job runs.
#   8. node5 crashes (kill-node): node5, node6 and node7 are lost; the job is gone from every other node.
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=7 FANOUT=2 HB_TIMEOUT_S=3
readonly LOST_BOUND_MS=$(((HB_TIMEOUT_S + 2) * 1000))
readonly TREE=(--fanout "$FANOUT" -w "node[1-$NODES]")
readonly SHELL_WORKER=(sh -c 'echo up; sleep 100 & wait')  # a grandchild the teardown must reach too
readonly EMIT=(sh tests/cluster/scripts/emit_known_bytes.sh)

# start_shell_job NAME [ARG...]: 7x2 shell workers; returns once all of their processes run.
start_shell_job() {
  JOB=tree-$1-$$
  OUT=$SCRATCH/$1.out
  start_muster "$OUT" --job-id "$JOB" --run-dir "$SCRATCH/$1" --heartbeat-timeout "$HB_TIMEOUT_S" --grace 1 \
    "${TREE[@]}" --nproc-per-node 2 "${@:2}" -- "${SHELL_WORKER[@]}"
  local want=$((NODES * 2 * 2))
  all_started() { (($(count_job_processes "$JOB") == want)); }
  wait_until 30 all_started ||
    fail "$1: expected $want job processes, have: $(all_job_processes "$JOB"); output: $(cat "$OUT")"
  running "$MUSTER_PID" || fail "$1: muster exited early: $(cat "$OUT")"
}

# assert_lost_exit WHAT T0_US BOUND_MS NODE [CARRIED...]: the head exited non-zero within BOUND_MS naming NODE
# lost, and the nodes lost with it.
assert_lost_exit() {
  local what=$1 t0=$2 bound=$3 ms node
  wait_exit "$MUSTER_PID" 15
  ms=$(ms_between "$t0" "$EXIT_US")
  step "$what: head exited $EXIT_RC, $(fmt_ms "$ms") s after the fault (bound $(fmt_ms "$bound") s)"
  ((EXIT_RC != 0 && EXIT_RC != 124)) || fail "$what: head exit $EXIT_RC; output: $(cat "$OUT")"
  ((ms <= bound)) || fail "$what: head took $ms ms (> $bound ms) to exit; output: $(cat "$OUT")"
  assert_contains "$(cat "$OUT")" "$4 lost" "$what: head output"
  for node in "${@:5}"; do assert_contains "$(cat "$OUT")" "$node" "$what: the nodes lost with $4"; done
}

manifest_tree() {
  /usr/bin/python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["launch_tree"]
print(t["head_connections"], t["depth"])' "$1/manifest.json"
}

logs_through_the_tree() {
  step "1. 7x2 ranks write known bytes through a tree of fanout 2"
  local run=$SCRATCH/logs out=$SCRATCH/logs.out r expected
  muster_launch --run-dir "$run" "${TREE[@]}" --nproc-per-node 2 -- "${EMIT[@]}" >"$out" 2>&1 ||
    fail "1. the job failed: $(tail -n 20 "$out" | cat -v)"
  for ((r = 0; r < NODES * 2; r++)); do
    expected=$SCRATCH/expected-$r
    RANK=$r NODE_RANK=$((r / 2)) "${EMIT[@]}" >"$expected"
    cmp "$expected" "$run/rank-$r.log" ||
      fail "1. rank-$r.log differs from what rank $r wrote ($(wc -c <"$expected") bytes expected, $(wc -c <"$run/rank-$r.log") logged)"
    grep -qaE "^\[node$((r / 2 + 1)): ?$r\] last line without newline $r" "$out" ||
      fail "1. the terminal does not show rank $r's partial last line"
  done
  assert_eq "2 3" "$(manifest_tree "$run")" "1. head connections and depth in the manifest"
  /usr/bin/python3 -c 'import json, sys; n = json.load(open(sys.argv[1]))["nodes"]
sys.exit([x["hostname"] for x in n] != ["node%d" % k for k in range(1, 8)])' "$run/manifest.json" ||
    fail "1. the manifest's host names are not node1..node7"
  step "1. all 14 rank logs byte-identical ($(wc -c <"$SCRATCH/expected-0") bytes each); the head held 2 connections, depth 3"
}

worker_killed_deep() {
  step "2. DDP 7x1 through the tree, kill -9 of the worker on node3 (depth 3)"
  JOB=tree-kill9-$$
  OUT=$SCRATCH/kill9.out
  start_muster "$OUT" --job-id "$JOB" --run-dir "$SCRATCH/kill9" "${TREE[@]}" --nproc-per-node 1 \
    -- /usr/bin/python3 examples/ddp_train.py --step-sleep 0.05 --steps 100000
  wait_until 60 grep -qE '^\[node1:0\] step +5 ' "$OUT" || fail "2. DDP job did not reach step 5 in 60 s: $(cat "$OUT")"
  local victim t0 ms
  victim=$(job_processes_on node3 "$JOB" | awk '/ddp_train\.py/ {print $1; exit}')
  [[ -n $victim ]] || fail "2. no DDP worker on node3: $(all_job_processes "$JOB")"
  t0=$(now_us)
  "$TESTBED" exec node3 kill -KILL "$victim"
  wait_exit "$MUSTER_PID" 15
  ms=$(ms_between "$t0" "$EXIT_US")
  step "2. kill -9 of rank 2 on node3 -> head exit $EXIT_RC after $(fmt_ms "$ms") s"
  assert_eq 137 "$EXIT_RC" "2. exit status (output: $(tail -n 20 "$OUT"))"
  ((ms < 5000)) || fail "2. head took $ms ms to exit after the kill"
  assert_contains "$(cat "$OUT")" "rank 2 on node3 failed" "2. head output"
  assert_no_job_processes "$JOB" 2
  step "2. no job process on any node $GONE_MS ms after the head exited"
  assert_no_agents 2
}

inner_agent_killed() {
  step "3. SIGKILL to the agent of inner node2 (it carries node3)"
  start_shell_job agent-kill
  local agents t0
  agents=$(agent_pids_on node2)
  [[ $(grep -c . <<<"$agents") == 1 ]] || fail "3. expected one muster agent on node2, got: '$agents'"
  t0=$(now_us)
  "$TESTBED" exec node2 kill -KILL "$agents"
  assert_no_job_processes "$JOB" 2
  step "3. no job process on any node $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the kill"
  assert_lost_exit "3. node2's agent killed" "$t0" 5000 node2 node3
  assert_contains "$(cat "$OUT")" "node3 lost with it" "3. node3 is named as lost with node2"
  assert_no_agents 2
}

inner_node_partitioned() {
  step "4. node2's cable pulled (heartbeat timeout ${HB_TIMEOUT_S}s)"
  start_shell_job partition
  local t0 left
  t0=$(now_us)
  "$TESTBED" partition node2
  assert_lost_exit "4. partition of node2" "$t0" "$LOST_BOUND_MS" node2 node3
  left=$(((t0 + LOST_BOUND_MS * 1000 - $(now_us)) / 1000))
  assert_no_job_processes "$JOB" "$(fmt_ms $((left > 0 ? left : 0)))" node1 node4 node5 node6 node7
  step "4. job gone from the other nodes $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the partition"
  left=$(((t0 + (LOST_BOUND_MS + 2000) * 1000 - $(now_us)) / 1000))
  assert_no_job_processes "$JOB" "$(fmt_ms $((left > 0 ? left : 0)))" node2 node3
  step "4. node2's and node3's workers gone (cut off) $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the partition"
  "$TESTBED" heal node2
  assert_no_job_processes "$JOB" 0 node2 node3
  assert_no_agents 2
}

deep_agent_silent() {
  step "5. node3's agent stopped (SIGSTOP): silent behind node2"
  start_shell_job silent
  local agent t0
  agent=$(agent_pids_on node3)
  [[ $(grep -c . <<<"$agent") == 1 ]] || fail "5. expected one muster agent on node3, got: '$agent'"
  t0=$(now_us)
  "$TESTBED" exec node3 kill -STOP "$agent"
  assert_lost_exit "5. node3's agent stopped" "$t0" "$LOST_BOUND_MS" node3
  assert_contains "$(cat "$OUT")" "no heartbeat" "5. why node3 was lost"
  assert_no_job_processes "$JOB" 2 node1 node2 node4 node5 node6 node7
  "$TESTBED" exec node3 kill -CONT "$agent"
  # Woken, it finds its connection to node2 closed and stops its workers.
  assert_no_job_processes "$JOB" 3 node3
  step "5. after SIGCONT, node3's agent saw its parent gone and stopped its workers"
  assert_no_agents 2
}

head_signals() {
  step "6. SIGINT to the head"
  start_shell_job head-int
  local t0
  t0=$(now_us)
  kill -INT "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 15
  assert_eq 130 "$EXIT_RC" "6. exit status after SIGINT (output: $(tail -n 20 "$OUT"))"
  assert_no_job_processes "$JOB" 2
  step "6. SIGINT: head exited after $(fmt_ms "$(ms_between "$t0" "$EXIT_US")") s, nothing left $GONE_MS ms later"
  assert_no_agents 2
  step "6. SIGKILL to the head"
  start_shell_job head-kill
  t0=$(now_us)
  kill -KILL "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 5
  assert_no_job_processes "$JOB" 3
  step "6. SIGKILL: no job process on any node $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the kill"
  assert_no_agents 2
}

relay_refused() {
  step "7. node3 refuses node2's key: the head reaches node3 itself"
  local key run=$SCRATCH/refused out=$SCRATCH/refused.out
  key=$("$TESTBED" exec node2 cat /root/.ssh/id_ed25519.pub | cut -d' ' -f2)
  "$TESTBED" exec node3 cp /root/.ssh/authorized_keys /root/.ssh/authorized_keys.tree-test
  add_cleanup "\"$TESTBED\" exec node3 sh -c 'test ! -f /root/.ssh/authorized_keys.tree-test || mv -f /root/.ssh/authorized_keys.tree-test /root/.ssh/authorized_keys'"
  "$TESTBED" exec node3 sed -i "\|$key|d" /root/.ssh/authorized_keys
  # node2 may keep an ssh master to node3 from the earlier launches: close it, so node2 must authenticate.
  "$TESTBED" exec node2 bash -c 'for s in /root/.cache/muster/ssh/*; do [[ -S $s ]] && ssh -o ControlPath="$s" -O exit x; done' \
    >/dev/null 2>&1 || true
  # shellcheck disable=SC2016
  muster_launch --run-dir "$run" "${TREE[@]}" -- sh -c 'echo "rank $RANK on $(hostname)"' >"$out" 2>&1 ||
    fail "7. the job failed: $(cat "$out")"
  assert_contains "$(cat "$out")" "node2 could not start the agent of node3" "7. the head says why"
  assert_contains "$(cat "$out")" "rank 2 on node3" "7. node3's rank ran"
  assert_eq "3 2" "$(manifest_tree "$run")" "7. head connections and depth"
  "$TESTBED" exec node3 mv -f /root/.ssh/authorized_keys.tree-test /root/.ssh/authorized_keys
  step "7. node3 reached from the head (3 connections), the job ran on all 7 nodes"
}

inner_node_crashed() {
  step "8. node5 crashes (it carries node6 and node7)"
  start_shell_job crash
  local t0 left
  t0=$(now_us)
  "$TESTBED" kill-node node5
  assert_lost_exit "8. crash of node5" "$t0" "$LOST_BOUND_MS" node5 "node[6-7] lost with it"
  left=$(((t0 + LOST_BOUND_MS * 1000 - $(now_us)) / 1000))
  assert_no_job_processes "$JOB" "$(fmt_ms $((left > 0 ? left : 0)))" node1 node2 node3 node4 node6 node7
  step "8. job gone from every other node $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the crash"
}

main() {
  require_torch
  launch_setup "$NODES" --mesh
  logs_through_the_tree
  worker_killed_deep
  inner_agent_killed
  inner_node_partitioned
  deep_agent_silent
  head_signals
  relay_refused
  inner_node_crashed  # last: a dead node needs a new testbed
  step "PASS"
}

main
