#!/usr/bin/env bash
# diagnosis_why_test.sh — `muster why` finds the job to explain and says it again (local transport):
#   1. a failed job's manifest.json holds the diagnosis as fields (id, title, rank, node, ranks, nodes, line, fix,
#      explain, report) that say what the launch's report said;
#   2. `muster why` with no argument explains the newest job (the failed one; after a job that succeeded, that one),
#      `muster why JOB-ID` a given job, `muster why --json` prints the manifest's diagnosis object;
#   3. a running job (no manifest yet) and an unknown job are errors that say so.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
export XDG_STATE_HOME=$WORK/state  # the job registry: this test's jobs only, whatever else runs on this machine

# Rank 1 of 2 runs a script this node lacks ("script-missing"); rank 0 waits and is stopped.
failed_job() {
  job failed
  FAILED=$JOB
  local rc=0
  LAUNCH_OUT=$("$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 -- sh -c \
    '[ "$RANK" = 1 ] && exec /usr/bin/python3 /no/such/dir/train.py; sleep 30' 2>&1) || rc=$?
  assert_eq 2 "$rc" "exit code of the failed job (python3's for a missing script)"
  assert_contains "$LAUNCH_OUT" "what happened: the script is not on the node — rank 1 on localhost" "the launch's report"
}

manifest_fields() {
  local run=muster-runs/$FAILED
  assert_eq "script-missing" "$(manifest_get "$run" 'm["diagnosis"]["id"]')" "diagnosis id"
  assert_eq "the script is not on the node" "$(manifest_get "$run" 'm["diagnosis"]["title"]')" "diagnosis title"
  assert_eq 1 "$(manifest_get "$run" 'm["diagnosis"]["rank"]')" "diagnosis rank"
  assert_eq localhost "$(manifest_get "$run" 'm["diagnosis"]["node"]')" "diagnosis node"
  assert_eq "[1]" "$(manifest_get "$run" 'm["diagnosis"]["ranks"]')" "diagnosis ranks"
  assert_eq "['localhost']" "$(manifest_get "$run" 'm["diagnosis"]["nodes"]')" "diagnosis nodes"
  assert_contains "$(manifest_get "$run" 'm["diagnosis"]["line"]')" "can't open file '/no/such/dir/train.py'" "diagnosis line"
  assert_contains "$(manifest_get "$run" 'm["diagnosis"]["explain"]')" "localhost has no /no/such/dir/train.py" \
    "diagnosis explain (the regex's group filled in)"
  assert_contains "$(manifest_get "$run" 'm["diagnosis"]["fix"]')" "muster launch --sync" "diagnosis fix"
  assert_contains "$(manifest_get "$run" 'm["diagnosis"]["entry_origin"]')" "failures.toml (built in)" "diagnosis origin"
  # The report the manifest keeps is the one the launch printed.
  local report
  report=$(manifest_get "$run" 'm["diagnosis"]["report"].rstrip("\n")')
  assert_contains "$LAUNCH_OUT" "$report" "the manifest's report, as printed"
}

why_newest_and_by_id() {
  local out
  out=$("$MUSTER" why 2>&1) || fail "muster why (newest): $out"
  assert_contains "$out" "job $FAILED (" "muster why with no argument: the newest job"
  assert_contains "$out" "exit 2" "muster why: the exit code"
  assert_contains "$out" "what happened: the script is not on the node — rank 1 on localhost" "muster why: the cause"

  job ok
  local ok=$JOB
  "$MUSTER" launch -q --job-id "$ok" -- true >/dev/null 2>&1 || fail "a job that succeeds failed"
  out=$("$MUSTER" why 2>&1) || fail "muster why (newest, after a success): $out"
  assert_contains "$out" "job $ok (" "muster why: the newest job is now the one that succeeded"
  assert_contains "$out" "every rank finished." "muster why of a job that succeeded"

  out=$("$MUSTER" why "$FAILED" 2>&1) || fail "muster why JOB-ID: $out"
  assert_contains "$out" "job $FAILED (" "muster why JOB-ID"
  assert_contains "$out" "what happened: the script is not on the node" "muster why JOB-ID: the cause"
}

why_json() {
  local out
  out=$("$MUSTER" why --json "$FAILED" 2>&1) || fail "muster why --json: $out"
  python3 - "$out" "muster-runs/$FAILED/manifest.json" <<'EOF' || fail "muster why --json is not the manifest's diagnosis: $out"
import json, sys
printed = json.loads(sys.argv[1])
manifest = json.load(open(sys.argv[2]))
assert printed == manifest["diagnosis"], (printed, manifest["diagnosis"])
assert printed["id"] == "script-missing" and printed["rank"] == 1 and printed["node"] == "localhost", printed
EOF
  out=$("$MUSTER" why --json "$JOB" 2>&1) || fail "muster why --json of a job that succeeded: $out"
  assert_eq "{}" "$out" "muster why --json: no diagnosis for a job that succeeded"
}

why_errors() {
  job running
  start_bg running.out launch -q --job-id "$JOB" -- sleep 30
  wait_until 10 test -s "muster-runs/$JOB/job.json" || fail "the running job has no job.json"
  local out rc=0
  out=$("$MUSTER" why "$JOB" 2>&1) || rc=$?
  [[ $rc != 0 ]] || fail "muster why of a running job succeeded: $out"
  assert_contains "$out" "has no manifest.json: the job is still running" "muster why of a running job"
  kill -INT "$BG_PID"
  wait_bg "$BG_PID" 15
  rc=0
  out=$("$MUSTER" why no-such-job-$$ 2>&1) || rc=$?
  assert_eq 2 "$rc" "exit code of muster why for an unknown job"
  assert_contains "$out" "no job 'no-such-job-$$'" "muster why for an unknown job"
}

failed_job
manifest_fields
why_newest_and_by_id
why_json
why_errors
