#!/usr/bin/env bash
# telemetry_steps_test.sh — step counting without a code change (docs/design/telemetry.md "Step sources"): one job,
# a rank per way of counting (tests/local/telemetry/steps_worker.py), each making TEST_STEPS steps:
#   ranks 0-2: torch.optim optimizers through the injected hook on Debian's torch 1.13 (SGD; Adam with a second
#   optimizer stepping too, which must not count; a subclass of Adam whose step calls Adam's, which must count
#   once); rank 3: torch >= 2's global step hooks (a stand-in package with that API: Debian has no torch 2);
#   rank 4: a tqdm loop; rank 5: the step marker ($MUSTER_STEP_FILE); rank 6: --step-pattern lines.
# The manifest's telemetry names each rank's source and exact step count, report.html has their series, and
# `why` says no straggler was named. Then MUSTER_STEP_TIMING=0 turns the hook off (no source), and
# --telemetry off leaves no telemetry at all.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

export XDG_STATE_HOME=$WORK/state
export XDG_CACHE_HOME=$WORK/cache
PY=/usr/bin/python3
"$PY" -c 'import torch, tqdm' 2>/dev/null || fail "needs Debian's python3-torch and python3-tqdm (scripts/install-deps)"
WORKER=$LOCAL_TEST_DIR/telemetry/steps_worker.py
export TEST_STEPS=40

# --- every source in one job ------------------------------------------------------------------------------------
job steps
rc=0
"$MUSTER" launch --job-id "$JOB" --transport local -w localhost --nproc-per-node 7 \
  --step-pattern '^iter [0-9]+ loss' -- "$PY" "$WORKER" >out 2>&1 || rc=$?
[[ $rc == 0 ]] || fail "the job exited $rc: $(tail -20 out)"
run=muster-runs/$JOB
check_rank() {  # RANK SOURCE: the manifest says RANK counted TEST_STEPS steps from SOURCE
  local got
  got=$(manifest_get "$run" "m['telemetry']['ranks']['$1']['source'] + ' ' + str(m['telemetry']['ranks']['$1']['steps'])")
  assert_eq "$2 $TEST_STEPS" "$got" "rank $1's step source and count"
}
check_rank 0 hook
check_rank 1 hook
check_rank 2 hook
check_rank 3 hook
check_rank 4 tqdm
check_rank 5 marker
check_rank 6 pattern
echo "every rank: $TEST_STEPS steps from its source (hook x4, tqdm, marker, pattern)" >&2

# report.html holds each rank's series: the steps of its points add up to the count.
"$PY" - "$run/report.html" "$TEST_STEPS" <<'PYEOF' || fail "report.html's series"
import json, re, sys
html = open(sys.argv[1]).read()
data = json.loads(re.search(r'<script type="application/json" id="muster-data">(.*?)</script>', html, re.S).group(1))
steps = {r["rank"]: sum(v for v in r["steps"] if v is not None) for r in data["ranks"]}
want = int(sys.argv[2])
assert sorted(steps) == list(range(7)), steps
for rank, total in steps.items():
    assert total == want, (rank, total)
hook = [r for r in data["ranks"] if r["rank"] == 0][0]
times = [v for v in hook["step_ms"] if v is not None]
assert times and all(25 <= v < 1000 for v in times), times  # a step: 30 ms of sleep and a little compute
PYEOF
why=$("$MUSTER" why "$JOB")
assert_contains "$why" "no straggler" "why on a job without stragglers"

# --- the hook turned off in the worker's environment --------------------------------------------------------------
job off
MUSTER_STEP_TIMING=0 "$MUSTER" launch --job-id "$JOB" --transport local -w localhost --nproc-per-node 1 \
  --env MUSTER_STEP_TIMING -- "$PY" "$WORKER" >out 2>&1 || fail "the job with MUSTER_STEP_TIMING=0: $(tail out)"
assert_eq "none 0" "$(manifest_get "muster-runs/$JOB" "m['telemetry']['ranks']['0']['source'] + ' ' + str(m['telemetry']['ranks']['0']['steps'])")" \
  "rank 0 with MUSTER_STEP_TIMING=0"

# --- no telemetry -------------------------------------------------------------------------------------------------
job none
"$MUSTER" launch --job-id "$JOB" --transport local -w localhost --nproc-per-node 1 --telemetry off \
  -- "$PY" "$WORKER" >out 2>&1 || fail "the job with --telemetry off: $(tail out)"
[[ ! -e muster-runs/$JOB/telemetry.zst && ! -e muster-runs/$JOB/report.html ]] || fail "--telemetry off left telemetry files"
assert_eq False "$(manifest_get "muster-runs/$JOB" "m['telemetry']['enabled']")" "manifest telemetry.enabled with --telemetry off"
report=$("$MUSTER" report "$JOB" 2>&1) && fail "muster report of a job without telemetry succeeded: $report"
assert_contains "$report" "--telemetry off" "muster report of a job without telemetry"
