#!/usr/bin/env bash
# `muster doctor --fabric` on the simulated cluster: 6 nodes, every link capped at 1 Gbit/s (tc tbf, both
# directions). Unshaped otherwise, the all_reduce sweep (torch.distributed, gloo, one rank per node, launched by
# muster) must find nothing wrong (exit 0); with node4's link at 100 Mbit/s (a tenth) it must name node4, and only
# node4, as the slow node (exit 1, a warning), with the cause and fix. Each run is bounded (timeout 120 s). Exit 0 pass,
# 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"
require_torch
nodes=6

launch_setup $nodes
for ((k = 1; k <= nodes; k++)); do "$TESTBED" rate node$k 1gbit; done  # launch_setup lifts caps an earlier run left
doctor_fabric() {
  XDG_CACHE_HOME=$MUX_HOME timeout 120 "$MUSTER" doctor "${MUSTER_SSH[@]}" -w "node[1-$nodes]" \
    --python /usr/bin/python3 --fabric "$@"
}
verdict() {
  python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
f = r["fabric"]
assert len(f["pairs"]) == 15, f["pairs"]
print(",".join(f["slow_nodes"]) or "-", ",".join(f["slow_links"]) or "-", round(f["ring"][-1]["busbw_gbps"], 3))'
}

step "doctor --fabric, every link at 1 Gbit/s"
start=$(now_us)
rc=0; json=$(doctor_fabric --json 2>"$SCRATCH/err1") || rc=$?
took=$(fmt_ms "$(ms_between "$start" "$(now_us)")")
assert_eq 0 "$rc" "exit code unshaped (output: $json $(tail -n 20 "$SCRATCH/err1"))"
read -r slow links busbw < <(verdict <<<"$json") || fail "unexpected JSON report: $json"
assert_eq "-" "$slow" "slow nodes unshaped"
assert_eq "-" "$links" "slow links unshaped"
step "unshaped: nothing wrong in $took s; ring bus bandwidth $busbw Gbit/s"

step "doctor --fabric, node4 at 100 Mbit/s"
"$TESTBED" rate node4 100mbit
start=$(now_us)
rc=0; json=$(doctor_fabric --json 2>"$SCRATCH/err2") || rc=$?
took=$(fmt_ms "$(ms_between "$start" "$(now_us)")")
assert_eq 1 "$rc" "exit code with node4 slow (a warning) (output: $json $(tail -n 20 "$SCRATCH/err2"))"
read -r slow links busbw < <(verdict <<<"$json") || fail "unexpected JSON report: $json"
assert_eq "node4" "$slow" "the slow node"
assert_eq "-" "$links" "slow links besides node4's"
step "node4 shaped: named in $took s; ring bus bandwidth $busbw Gbit/s"
out=$(doctor_fabric 2>&1) || true
assert_contains "$out" "node4's link is slow"
assert_contains "$out" "--exclude-hosts node4"
echo "PASS: $TEST_NAME"
