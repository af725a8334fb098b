#!/usr/bin/env bash
# launch_unreachable_test.sh — `muster launch` on a host list with a node that cannot be reached fails fast
# and cleanly. 3 nodes, --connect-timeout 2; each failing launch must exit 1 within 2 + 1 s, name the bad
# node, and leave nothing running on the reachable nodes (no `muster agent`, no process of the job):
#   1. node3 partitioned (cable pulled: silence) right after a good launch, so muster's ssh master connection
#      to node3 is still open (ssh's ConnectTimeout does not apply to a multiplexed session);
#   2. the same without multiplexing (--no-multiplex: a fresh ssh connection that times out);
#      after heal, no muster agent or job process turns up on node3 either (queued ssh packets delivered late);
#   3. node3 crashed silently (`testbed kill-node --silent`: no FIN/RST);
#   4. an unknown host alias nodeX next to node1.
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3 CONNECT_TIMEOUT_S=2
readonly BOUND_MS=$(((CONNECT_TIMEOUT_S + 1) * 1000))

# failing_launch NAME BAD-NODE HOSTS [MUSTER-FLAG...]: the launch fails as it should; nothing left on the others.
failing_launch() {
  local name=$1 bad=$2 hosts=$3 out=$SCRATCH/$1.out ms k
  shift 3
  JOB=unreachable-$name-$$
  start_muster "$out" --job-id "$JOB" --run-dir "$SCRATCH/$name" --connect-timeout "$CONNECT_TIMEOUT_S" -w "$hosts" \
    "$@" -- sleep 30
  wait_exit "$MUSTER_PID" 20
  ms=$(ms_between "$MUSTER_START_US" "$EXIT_US")
  step "$name: exit $EXIT_RC after $(fmt_ms "$ms") s: $(head -n 1 "$out")"
  assert_eq 1 "$EXIT_RC" "$name: exit status (output: $(cat "$out"))"
  ((ms <= BOUND_MS)) || fail "$name: took $ms ms (> $BOUND_MS ms) to fail; output: $(cat "$out")"
  assert_contains "$(cat "$out")" "$bad" "$name: output naming the unreachable node"
  for ((k = 1; k <= NODES; k++)); do
    [[ node$k == "$bad" ]] && continue
    assert_no_job_processes "$JOB" 2 "node$k"
  done
  assert_no_agents 2
}

main() {
  launch_setup "$NODES"
  step "a good launch first (binary uploaded, ssh masters open)"
  muster_launch --run-dir "$SCRATCH/good" -q -w "node[1-$NODES]" -- true >"$SCRATCH/good.out" 2>&1 ||
    fail "the good launch failed: $(cat "$SCRATCH/good.out")"

  "$TESTBED" partition node3
  failing_launch partition-multiplexed node3 "node[1-$NODES]"
  failing_launch partition-fresh-ssh node3 "node[1-$NODES]" --no-multiplex
  "$TESTBED" heal node3
  sleep_s 2  # anything queued for node3 arrives now
  assert_no_agents 1
  assert_no_job_processes "$JOB" 0 node3
  assert_no_job_processes "unreachable-partition-multiplexed-$$" 0 node3

  "$TESTBED" kill-node node3 --silent
  failing_launch crashed-silently node3 "node[1-$NODES]"

  failing_launch unknown-alias nodeX "node1,nodeX"
  step "PASS"
}

main
