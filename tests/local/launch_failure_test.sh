#!/usr/bin/env bash
# shellcheck disable=SC2016,SC1003  # worker scripts and literal arguments are single-quoted on purpose
# launch: a failing rank stops the gang. The root cause's exit code becomes muster's, the report names it
# with its last lines, the other ranks are stopped quickly (SIGKILL after --grace for those that ignore
# SIGTERM), nothing is left running; a command or directory that does not exist is a clear error;
# --max-restarts restarts the whole job.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# assert_no_leftovers WHAT: no process of $JOB may outlive muster (0.5 s for the kernel to reap).
assert_no_leftovers() {
  wait_until 0.5 no_job_processes "$JOB" ||
    fail "$1: processes of job $JOB still running after muster exited:
$(describe_job_processes "$JOB")"
}

# --- a rank exits 3 --------------------------------------------------------------------------------------------
job exit3
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 3 -- sh -c \
  'if [ "$RANK" = 1 ]; then echo "first words"; echo "famous last words" >&2; exit 3; fi; exec sleep 30' \
  >out 2>err || rc=$?
report=$(cat out err)
assert_eq 3 "$rc" "exit code when rank 1 exits 3"
grep -Eq '^ *1 +localhost +1 +exited +exit 3 +<- root cause' <<<"$report" ||
  fail "the failure table does not name rank 1 (exit 3) as the root cause:
$report"
grep -Eq '^ *0 +localhost .*stopped by muster' <<<"$report" || fail "the table does not say rank 0 was stopped by muster:
$report"
assert_contains "$(sed -n '/last lines of rank 1/,$p' <<<"$report")" "famous last words" "the root cause's last lines"
assert_contains "$report" "muster-runs/$JOB/rank-1.log" "the report points at the root cause's log"
assert_no_leftovers "rank 1 exited 3"

# --- a rank is killed by SIGKILL: exit 137, sleeping ranks stopped at once ----------------------------------
job kill9
rc=0
start=$EPOCHREALTIME
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 3 -- sh -c \
  'if [ "$RANK" = 2 ]; then sleep 0.2; kill -9 $$; fi; sleep 30' >out 2>err || rc=$?
assert_faster 5 "$start" "job with a rank killed by SIGKILL while the others sleep 30 s"
assert_eq 137 "$rc" "exit code when rank 2 is killed by SIGKILL"
grep -Eq '^ *2 +localhost .*SIGKILL +<- root cause' out err || fail "the table does not name rank 2 (SIGKILL) as the root cause:
$(cat out err)"
assert_no_leftovers "rank 2 killed by SIGKILL"

# --- a rank ignores SIGTERM: SIGKILL after --grace 1 ----------------------------------------------------------
job grace
rc=0
start=$EPOCHREALTIME
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --grace 1 -- sh -c \
  'if [ "$RANK" = 0 ]; then trap "" TERM; touch "ready-$MUSTER_JOB_ID"; sleep 60; fi
   while [ ! -e "ready-$MUSTER_JOB_ID" ]; do sleep 0.05; done; exit 5' >out 2>err || rc=$?
took=$(elapsed_since "$start")
assert_faster 5 "$start" "job whose rank 0 ignores SIGTERM, with --grace 1"
awk -v t="$took" 'BEGIN { exit !(t >= 0.9) }' || fail "rank 0 ignores SIGTERM, but the job ended after ${took}s, before --grace 1"
assert_eq 5 "$rc" "exit code when rank 1 exits 5"
grep -Eq '^ *0 +localhost .*killed by SIGKILL' out err || fail "rank 0 (ignores SIGTERM) was not SIGKILLed:
$(cat out err)"
assert_no_leftovers "rank 0 ignored SIGTERM"

# --- --chdir to a directory that does not exist -----------------------------------------------------------------
job chdir
rc=0
"$MUSTER" launch --job-id "$JOB" --chdir /nonexistent-muster-test -- true >out 2>err || rc=$?
assert_eq 1 "$rc" "exit code for --chdir /nonexistent-muster-test"
assert_contains "$(cat out err)" "'/nonexistent-muster-test' does not exist on this node" "error for --chdir to a missing directory"
# Not "in this container": a machine whose root was built from a container image may have /.dockerenv.
assert_not_contains "$(cat out err)" "container" "the error speaks of the node, not of a container"

# --- --max-restarts 2: attempts 0 and 1 fail, attempt 2 succeeds -----------------------------------------------
# Rank 0 prints its attempt and port and fails on attempts 0 and 1; rank 1 waits (and is stopped) until then.
job restarts
rc=0
start=$EPOCHREALTIME
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 2 -- sh -c \
  'n=$TORCHELASTIC_RESTART_COUNT
   if [ "$RANK" = 0 ]; then echo "attempt=$n port=$MASTER_PORT max=$TORCHELASTIC_MAX_RESTARTS"; [ "$n" -ge 2 ]; exit; fi
   [ "$n" -ge 2 ] || exec sleep 30' >out 2>err || rc=$?
assert_eq 0 "$rc" "exit code of a job that succeeds on its third attempt: $(cat out err)"
assert_faster 10 "$start" "three attempts of a job"
run=muster-runs/$JOB
attempts=$(sed 's/ port=[0-9]*//' "$run/rank-0.log")
assert_eq "attempt=0 max=2
attempt=1 max=2
attempt=2 max=2" "$attempts" "attempts seen by rank 0 (TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS)"
while read -r port; do
  if ! [[ $port =~ ^[1-9][0-9]{0,4}$ ]] || ((port > 65535)); then fail "MASTER_PORT of an attempt is not a port: '$port'"; fi
done < <(sed -n 's/.* port=\([^ ]*\) .*/\1/p' "$run/rank-0.log")
assert_eq 3 "$(sed -n 's/.* port=\([^ ]*\) .*/\1/p' "$run/rank-0.log" | wc -l)" "ports printed by rank 0"
assert_eq "1 1 0" "$(manifest_get "$run" '" ".join(str(a["exit_code"]) for a in m["attempts"])')" \
  "manifest: exit code per attempt"
assert_eq 0 "$(manifest_get "$run" 'm["exit_code"]')" "manifest: exit code of the job"
assert_no_leftovers "--max-restarts 2"

# --- a command that does not exist ------------------------------------------------------------------------------
job missing
rc=0
"$MUSTER" launch --job-id "$JOB" -- muster-test-no-such-command arg >out 2>err || rc=$?
assert_eq 1 "$rc" "exit code for a command that does not exist"
assert_contains "$(cat out err)" "command not found: 'muster-test-no-such-command'" "error for a missing command"
