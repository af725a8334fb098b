#!/usr/bin/env bash
# telemetry_straggler_test.sh — stragglers named on the testbed (issue 25): 3 nodes x 2 ranks of a DDP job (Debian's
# torch, gloo; tests/cluster/scripts/ddp_telemetry.py), every rank doing the same work per step.
#   1. 30 s into the job, rank 3 (node2) is slowed from outside: its process is moved into a cgroup of its own with
#      a CPU limit (the host's cgroup tree, as an admin or another tenant's limit would). Within 60 s `muster top
#      --json` and the launch's output name rank 3 on node2 — nobody else — with a likely cause that names its
#      cgroup; the job ends 0; afterwards `muster why` names it, with the time and the cause.
#   2. A healthy 3-minute run of the same job (default threshold 10 %, window 60 s) names nobody: not in its
#      output, not in the manifest, `why` says so.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / torch / cgroup cpu controller).
# MUSTER_TELEMETRY_KEEP=DIR keeps both run directories there (the recorded series of tests/unit/telemetry/fixtures).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"
require_torch
CPU_ROOT=/sys/fs/cgroup/cpu
if [[ ! -w $CPU_ROOT/cpu.cfs_quota_us ]]; then
  [[ ${MUSTER_REQUIRE_CLUSTER:-0} != 1 ]] || fail "needs a cgroup v1 cpu controller at $CPU_ROOT"
  echo "SKIP: $TEST_NAME: needs a cgroup v1 cpu controller at $CPU_ROOT" >&2
  exit 77
fi

launch_setup 3
export XDG_STATE_HOME=$SCRATCH/state  # this test's own job registry, for top and why
DDP=(/usr/bin/python3 "$REPO/tests/cluster/scripts/ddp_telemetry.py")
SLOW_RANK=3 SLOW_NODE=node2
SLOW_CGROUP=$CPU_ROOT/muster-test-straggler-$$
remove_slow_cgroup() {
  [[ -d $SLOW_CGROUP ]] || return 0
  local pid
  for pid in $(cat "$SLOW_CGROUP/cgroup.procs" 2>/dev/null); do echo "$pid" >"$CPU_ROOT/cgroup.procs" 2>/dev/null || true; done
  rmdir "$SLOW_CGROUP" 2>/dev/null || true
}
add_cleanup remove_slow_cgroup
keep_run() { [[ -z ${MUSTER_TELEMETRY_KEEP:-} ]] || { mkdir -p "$MUSTER_TELEMETRY_KEEP" && cp -r "$1" "$MUSTER_TELEMETRY_KEEP/"; }; }

# host_pid_of_rank JOB RANK: the host's pid of that rank's Python process (the nodes' PID namespaces are below ours).
host_pid_of_rank() {
  local f pid
  for f in $(grep -lzxF "MUSTER_JOB_ID=$1" /proc/[0-9]*/environ 2>/dev/null); do
    pid=${f#/proc/}
    pid=${pid%/environ}
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == python3 ]] || continue
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "RANK=$2" && echo "$pid" && return 0
  done
  return 1
}
# top_json JOB: one `muster top --json --once` snapshot in $SCRATCH/top.json.
top_json() { "$MUSTER" top --json --once "$1" >"$SCRATCH/top.json" 2>/dev/null; }
all_ranks_step() {
  top_json "$1" && python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
ranks = [r for n in s["nodes"] for r in n.get("rank_rows", [])]
assert len(ranks) == 6 and all(r["source"] == "hook" and r["steps"] > 0 for r in ranks)' "$SCRATCH/top.json" 2>/dev/null
}
# named_in_top JOB: the stragglers top names, "rank@node" space-separated (empty: none).
named_in_top() {
  python3 -c '
import json, sys
print(" ".join("%d@%s" % (s["rank"], s["node"]) for s in json.load(open(sys.argv[1]))["stragglers"]))' "$SCRATCH/top.json"
}

# --- 1. a rank slowed from outside ----------------------------------------------------------------------------------
JOB=straggler-$$
step "3 nodes x 2 ranks, rank $SLOW_RANK slowed 30 s in"
start_muster "$SCRATCH/straggler.out" --job-id "$JOB" --run-dir "$SCRATCH/$JOB" -w 'node[1-3]' --nproc-per-node 2 \
  -- "${DDP[@]}" --seconds 150
wait_until 90 all_ranks_step "$JOB" || fail "not every rank reported steps within 90 s: $(tail -n 20 "$SCRATCH/straggler.out")"
started_us=$MUSTER_START_US
until (($(ms_between "$started_us" "$(now_us)") >= 30000)); do sleep_s 0.5; done
pid=$(host_pid_of_rank "$JOB" "$SLOW_RANK") || fail "no process of rank $SLOW_RANK found"
mkdir "$SLOW_CGROUP"
echo 100000 >"$SLOW_CGROUP/cpu.cfs_period_us"
echo 10000 >"$SLOW_CGROUP/cpu.cfs_quota_us"  # a tenth of a core
echo "$pid" >"$SLOW_CGROUP/cgroup.procs"
slowed_us=$(now_us)
step "rank $SLOW_RANK (host pid $pid) limited to 0.1 CPU"
named_in_top_output() { top_json "$JOB" && [[ $(named_in_top) == *"$SLOW_RANK@$SLOW_NODE"* ]]; }
wait_until 60 named_in_top_output || fail "top named no straggler within 60 s of the slowdown: $(head -c 2000 "$SCRATCH/top.json")"
top_ms=$(ms_between "$slowed_us" "$(now_us)")
assert_eq "$SLOW_RANK@$SLOW_NODE" "$(named_in_top)" "the stragglers top names"
named_in_output() { grep -q "straggler: rank $SLOW_RANK on $SLOW_NODE " "$SCRATCH/straggler.out"; }
wait_until 5 named_in_output || fail "the launch output does not name rank $SLOW_RANK: $(tail -n 20 "$SCRATCH/straggler.out")"
notice=$(grep "straggler: rank $SLOW_RANK on $SLOW_NODE " "$SCRATCH/straggler.out")
step "named in top after $(fmt_ms "$top_ms") s; the launch said: $notice"
assert_contains "$notice" "cgroup" "the likely cause"
wait_exit "$MUSTER_PID" 300
((EXIT_RC == 0)) || fail "the job exited $EXIT_RC: $(tail -n 20 "$SCRATCH/straggler.out")"
others=$(grep "straggler: rank" "$SCRATCH/straggler.out" | grep -v "straggler: rank $SLOW_RANK on " || true)
[[ -z $others ]] || fail "other ranks were named too: $others"
why=$("$MUSTER" why "$SCRATCH/$JOB")
assert_contains "$why" "rank $SLOW_RANK on $SLOW_NODE (attempt 1), from" "why"
step "why: $(grep "rank $SLOW_RANK on $SLOW_NODE" <<<"$why")"
keep_run "$SCRATCH/$JOB"
remove_slow_cgroup

# --- 2. a healthy run -----------------------------------------------------------------------------------------------
JOB=healthy-$$
step "3 nodes x 2 ranks for 3 minutes, nothing slowed"
muster_launch --job-id "$JOB" --run-dir "$SCRATCH/$JOB" -w 'node[1-3]' --nproc-per-node 2 -- "${DDP[@]}" --seconds 180 \
  >"$SCRATCH/healthy.out" 2>&1 || fail "the healthy job failed: $(tail -n 20 "$SCRATCH/healthy.out")"
named=$(grep "straggler" "$SCRATCH/healthy.out" || true)
[[ -z $named ]] || fail "a healthy run named a straggler: $named"
assert_eq 0 "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["telemetry"]["stragglers"]))' "$SCRATCH/$JOB/manifest.json")" \
  "stragglers in the healthy run's manifest"
assert_contains "$("$MUSTER" why "$SCRATCH/$JOB")" "no straggler" "why on the healthy run"
keep_run "$SCRATCH/$JOB"
step "the healthy run named nobody"
