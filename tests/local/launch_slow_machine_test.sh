#!/usr/bin/env bash
# launch on a slow machine: the head, the agent and every worker confined to a small share of one core (a cgroup
# CPU quota stands in for a slow or loaded 2-core machine). A node that is busy starting ranks is not a lost node:
#   1. 1,000 ranks of `true` on one node at 8 % of a core end 0, every rank with its log, no node lost (the agent
#      started all 1,000 in one loop round, sent no heartbeat for over 5 s, and the head judged it lost);
#   2. the same job stopped by SIGTERM to the head while its ranks are still starting: the ranks not started yet
#      are never started, the launch ends 143 at once and leaves no process behind.
# Needs root for the cgroup (exit 77 without it; a failure with MUSTER_REQUIRE_CLUSTER=1).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
needs_slow_cpu
make_slow_cpu 8

job many
start=$EPOCHREALTIME
rc=0
(ulimit -Sn 1024 && ulimit -Hn 4096 && in_slow_cpu "$MUSTER" launch --job-id "$JOB" --nproc-per-node 1000 -- true) \
  >out 2>err || rc=$?
echo "1000 ranks of true at 8 % of a core: $(elapsed_since "$start") s" >&2
[[ $rc == 0 ]] || fail "1000 ranks at 8 % of a core exited $rc: $(head -n 5 out err)"
assert_not_contains "$(cat out err)" "lost" "output of the slow launch"
assert_eq 1000 "$(find "muster-runs/$JOB" -name 'rank-*.log' | wc -l)" "rank logs of the slow launch"

# --- stopped while starting ---------------------------------------------------------------------------------------
job stopped
(in_slow_cpu "$MUSTER" launch --job-id "$JOB" --nproc-per-node 1000 -- sleep 60 >out 2>err) &
head=$!
BG_PIDS+=("$head")
some_started() { [[ $(job_processes "$JOB" | wc -l) -ge 20 ]]; }
wait_until 60 some_started || fail "not 20 ranks started within 60 s"
kill -TERM "$head"
wait_bg "$head" 60
assert_eq 143 "$BG_RC" "exit code of the launch stopped by SIGTERM"
wait_until 10 no_job_processes "$JOB" || fail "processes left after the stop: $(describe_job_processes "$JOB")"
never=$(manifest_get "muster-runs/$JOB" \
  'sum(1 for r in m["attempts"][-1]["ranks"].values() if r["detail"] == "not started: stopped by SIGTERM before it started")')
[[ $never -gt 0 ]] || fail "no rank was left unstarted (the stop came after all 1000 had started?)"
started=$(manifest_get "muster-runs/$JOB" 'sum(1 for r in m["attempts"][-1]["ranks"].values() if r["state"] == "signaled")')
echo "stopped while starting: $never ranks never started, $started stopped" >&2
