#!/usr/bin/env bash
# run_state_test.sh — the per-job state on a node ($XDG_STATE_HOME/muster/runs/<job>/<node>/, issue 27 item 12):
#   1. a job that ends well leaves none;
#   2. a failed job's stays (for `why`), with its stacks directory;
#   3. when an agent starts a job, directories untouched for 14 days go (any node's), and of its node only the
#      20 newest stay, never one whose lock a live agent holds (an `flock` process stands in for that agent).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

export XDG_STATE_HOME=$WORK/state  # this test's registry and node state only
RUNS=$XDG_STATE_HOME/muster/runs
NODE=$(hostname)

# --- 1. ended well: nothing left ----------------------------------------------------------------------------------
job good
"$MUSTER" launch -q -w localhost --nproc-per-node 2 --job-id "$JOB" -- true >out 2>&1 || fail "launch: $(cat out)"
[[ ! -e $RUNS/$JOB ]] || fail "a job that ended well left its node state: $(find "$RUNS/$JOB" | head)"
echo "  a job that ended well leaves no node state"

# --- 2. failed: kept -------------------------------------------------------------------------------------------
job bad
rc=0
"$MUSTER" launch -q -w localhost --nproc-per-node 2 --job-id "$JOB" -- sh -c 'exit 3' >out 2>&1 || rc=$?
assert_eq 3 "$rc" "exit code of the failing job"
[[ -d $RUNS/$JOB/$NODE/stacks ]] || fail "a failed job's node state is gone: $(ls -R "$RUNS" 2>&1 | head)"
BAD_JOB=$JOB
echo "  a failed job's node state is kept"

# --- 3. pruning -------------------------------------------------------------------------------------------------
mkdir -p "$RUNS/ancient/othernode" "$RUNS/ancient-busy/$NODE"
touch "$RUNS/ancient-busy/$NODE/.in-use"
for k in $(seq -w 1 25); do mkdir -p "$RUNS/old-$k/$NODE"; touch -d "$((30 - 10#$k)) hours ago" "$RUNS/old-$k/$NODE"; done
touch -d '20 days ago' "$RUNS/ancient/othernode" "$RUNS/ancient-busy/$NODE"
# A live agent's lock: held by flock(1) for as long as the prune may take.
flock "$RUNS/ancient-busy/$NODE/.in-use" sleep 60 &
BG_PIDS+=($!)
sleep 0.3
# The jobs above looked a moment ago, and a node looks at most every 10 minutes: forget that look.
[[ -f $RUNS/.pruned-$NODE ]] || fail "no stamp of the last look for old state: $(ls -a "$RUNS")"
rm -f "$RUNS/.pruned-$NODE"
job prune
"$MUSTER" launch -q -w localhost --job-id "$JOB" -- true >out 2>&1 || fail "launch: $(cat out)"
[[ ! -e $RUNS/ancient ]] || fail "a directory untouched for 20 days (another node's) was not pruned"
[[ -d $RUNS/ancient-busy/$NODE ]] || fail "a directory whose lock is held was pruned"
left=$(cd "$RUNS" && ls -d old-* | wc -l)
# This node's: the 20 newest stay; the failed job of step 2 is younger than all of old-*, so 19 of those remain.
assert_eq 19 "$left" "this node's directories left of old-01..old-25 (20 newest kept, step 2's among them)"
[[ -d $RUNS/old-25 && ! -e $RUNS/old-06 ]] || fail "not the oldest were pruned: $(ls "$RUNS")"
[[ -d $RUNS/$BAD_JOB/$NODE ]] || fail "the newest failed job's state was pruned"
echo "  pruned: 20 days old, and this node's beyond the 20 newest; a held lock kept its directory"
