#!/usr/bin/env bash
# diagnosis_failures_test.sh — a failed job's report says what happened and what to do, on the simulated
# cluster, for every catalogue entry that can be produced for real here (tests/cluster/scripts/fail_modes.py):
#   segfault (with faulthandler's Python frames in the log), SIGKILL, a module present on some nodes only (named
#   by a probe on every node), gloo connecting to 127.0.1.1 because a node maps its own name there (with the
#   interface doctor picks), a rendezvous port already in use, the HF datasets ".incomplete" cache race of two
#   nodes preparing into one shared directory, a real kernel OOM kill (a 64 MiB memory cgroup, v1 or v2; neither is
#   a failure, not a skip), and an exception
#   recorded by torch's @record in its error file.
#   Each asserts the node, the rank, the cause and the fix in the report, and `muster why` prints it again.
# Exit 0 pass, 1 fail, 77 skip.
# A directory every node sees at the same path (the race needs a shared cache): /var/tmp is the host's.
SHARED=/var/tmp/muster-diag-shared-$$
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly SCRIPT=tests/cluster/scripts/fail_modes.py
launch_setup 3
export XDG_STATE_HOME=$SCRATCH/state
add_cleanup restore_hosts
add_cleanup remove_shared
remove_shared() { rm -rf "$SHARED"; }

# run_failing NAME EXPECTED_EXIT MUSTER-ARGS...: runs a job that must fail; REPORT gets its output.
run_failing() {
  local name=$1 expected=$2 out=$SCRATCH/$1.out
  shift 2
  RUN=$SCRATCH/$name
  start_muster "$out" --run-dir "$RUN" --job-id "$name-$$" "$@"
  wait_exit "$MUSTER_PID" 90
  REPORT=$(cat "$out")
  [[ $EXIT_RC == "$expected" ]] || fail "$name: exit $EXIT_RC, expected $expected; output:"$'\n'"$REPORT"
  assert_contains "$REPORT" "what happened: " "$name: the report"
}

# manifest_field RUN EXPR: a field of RUN/manifest.json at a Python expression over m.
manifest_field() {
  python3 -c 'import json, sys; m = json.load(open(sys.argv[1] + "/manifest.json")); print(eval(sys.argv[2]))' "$1" "$2"
}

# expect NAME TEXT...: the report contains each TEXT.
expect() {
  local name=$1 text
  shift
  for text in "$@"; do assert_contains "$REPORT" "$text" "$name report"; done
}

# why_again NAME TITLE: `muster why RUN` prints the same cause.
why_again() {
  local why
  why=$("$MUSTER" why "$RUN" 2>&1) || fail "$1: muster why failed: $why"
  assert_contains "$why" "what happened: $2" "$1: muster why"
  step "$1: report and muster why say: $2"
}

segfault() {
  run_failing segv 139 -w "node[1-2]" -- /usr/bin/python3 "$SCRIPT" segv
  expect segv "what happened: crashed with a segmentation fault — rank 1 on node2" "crash_in_extension" \
    "rank-1.log" "SIGSEGV (signal 11)"
  why_again segv "crashed with a segmentation fault"
}

sigkill() {
  run_failing kill 137 -w "node[1-2]" -- /usr/bin/python3 "$SCRIPT" kill
  expect kill "what happened: killed with SIGKILL — rank 1 on node2" "SIGKILL (signal 9)" "dmesg"
  why_again kill "killed with SIGKILL"
}

module_on_some_nodes() {
  local k
  for k in 1 3; do "$TESTBED" exec "node$k" sh -c 'mkdir -p /data/mods && echo "x = 1" >/data/mods/muster_probe_mod.py'; done
  "$TESTBED" exec node2 rm -f /data/mods/muster_probe_mod.py
  run_failing import 1 -w "node[1-3]" --env PYTHONPATH=/data/mods -- /usr/bin/python3 "$SCRIPT" import
  expect import "what happened: a Python module is missing — rank 1 on node2" \
    "it imports on: node[1,3]; it does not on:"$'\n'"  node2" "-m pip install" "muster sync"
  why_again import "a Python module is missing"
}

loopback_trap() {
  local k
  for k in 1 2; do
    "$TESTBED" exec "node$k" sh -c 'cp /etc/hosts /run/hosts.diag-test && { echo "127.0.1.1 $(hostname)"; cat /run/hosts.diag-test; } >/etc/hosts'
  done
  run_failing loopback 1 -w "node[1-2]" -- /usr/bin/python3 "$SCRIPT" gloo
  restore_hosts
  expect loopback "what happened: ranks tried to reach each other on a loopback address (127.0.1.1)" \
    "[127.0.1.1]" "muster setup hosts -w <nodes> --fix-loopback" "NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0"
  # Both ranks connect to their own 127.0.1.1 and fail; the report names the one it explains (one rank per node:
  # rank r on node r+1), the same as the manifest, and the node the matched line comes from.
  local who rank node
  who=$(grep -o "what happened: ranks tried to reach each other on a loopback address (127.0.1.1) — .*" <<<"$REPORT")
  rank=$(manifest_field "$RUN" 'm["diagnosis"]["rank"]')
  node=$(manifest_field "$RUN" 'm["diagnosis"]["node"]')
  [[ $rank == [01] && $node == "node$((rank + 1))" ]] || fail "loopback: the manifest names rank $rank on $node"
  [[ $who == *"— rank $rank on $node" || $who == *"— ranks 0-1 on node[1-2] (the same error on each; first: rank $rank on $node)" ]] ||
    fail "loopback: the report does not name rank $rank on $node: $who"
  step "loopback: $who"
  why_again loopback "ranks tried to reach each other on a loopback address"
}

restore_hosts() {
  local k
  for k in 1 2; do
    "$TESTBED" exec "node$k" sh -c '[ -f /run/hosts.diag-test ] && cat /run/hosts.diag-test >/etc/hosts && rm /run/hosts.diag-test; true' 2>/dev/null || true
  done
}

port_in_use() {
  local port=29311 holder
  "$TESTBED" exec node1 sh -c "exec python3 -c 'import socket,time; s=socket.socket(); s.bind((\"0.0.0.0\", $port)); s.listen(); time.sleep(60)'" &
  holder=$!
  sleep 1
  run_failing port 1 -w "node[1-2]" --env TAKEN_PORT=$port -- /usr/bin/python3 "$SCRIPT" port
  kill "$holder" 2>/dev/null || true
  expect port "what happened: the rendezvous port was already taken — rank 0 on node1" "Address already in use" \
    "init_process_group(\"env://\")"
  why_again port "the rendezvous port was already taken"
}

cache_race() {
  mkdir -p "$SHARED/hf"
  run_failing cache 1 -w "node[1-2]" --env CACHE_DIR="$SHARED/hf" -- /usr/bin/python3 "$SCRIPT" cache
  expect cache "what happened: two nodes prepared the same HuggingFace dataset in one shared cache — rank 0 on node1" \
    ".incomplete/dataset_info.json" "HF_DATASETS_CACHE"
  why_again cache "two nodes prepared the same HuggingFace dataset"
}

# A real OOM kill: a memory cgroup of 64 MiB (the testbed nodes share the host's cgroup hierarchy), cgroup v1's
# memory controller or cgroup v2's (memory.max). A machine with neither cannot run this case: that is a failure,
# never a pass (the OOM entry is also matched on recorded lines in the unit tests).
make_oom_cgroup() {
  local v2
  if [[ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]]; then
    OOM_CGROUP=/sys/fs/cgroup/memory/muster-diag-oom-$$
    mkdir "$OOM_CGROUP"
    echo $((64 << 20)) >"$OOM_CGROUP/memory.limit_in_bytes"
    echo 0 >"$OOM_CGROUP/memory.swappiness" 2>/dev/null || true
    step "oom: a cgroup v1 memory cgroup of 64 MiB"
    return
  fi
  v2=$(findmnt -n -t cgroup2 -o TARGET | head -n 1)
  if [[ -n $v2 ]] && grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; then
    # The root is exempt from "no internal processes": its children may get the memory controller.
    grep -qw memory "$v2/cgroup.subtree_control" || echo +memory >"$v2/cgroup.subtree_control"
    OOM_CGROUP=$v2/muster-diag-oom-$$
    mkdir "$OOM_CGROUP"
    echo $((64 << 20)) >"$OOM_CGROUP/memory.max"
    echo 0 >"$OOM_CGROUP/memory.swap.max" 2>/dev/null || true
    step "oom: a cgroup v2 memory cgroup of 64 MiB (memory.max)"
    return
  fi
  fail "oom: no memory cgroup controller here (neither cgroup v1's memory hierarchy nor memory in a cgroup2" \
    "mount's cgroup.controllers), so a real OOM kill cannot be produced; mount one or run on another machine"
}

oom_kill() {
  make_oom_cgroup
  add_cleanup remove_oom_cgroup
  local cgroup=$OOM_CGROUP
  # The nodes' /sys is their own (ip netns): the host moves the rank into the cgroup, by its host pid.
  (
    for _ in $(seq 600); do
      for f in $(grep -lzxF "MUSTER_JOB_ID=oom-$$" /proc/[0-9]*/environ 2>/dev/null); do
        pid=${f#/proc/}; pid=${pid%/environ}
        if tr '\0' '\n' <"$f" 2>/dev/null | grep -qx 'RANK=1' && grep -q fail_modes "/proc/$pid/cmdline" 2>/dev/null; then
          echo "$pid" >"$cgroup/cgroup.procs" && exit 0
        fi
      done
      sleep 0.05
    done
  ) &
  run_failing oom 137 -w "node[1-2]" --env OOM_CGROUP="${cgroup##*/}" -- /usr/bin/python3 "$SCRIPT" oom
  expect oom "what happened: killed by the kernel's out-of-memory killer — rank 1 on node2" \
    "node2 ran out of host memory" "Killed process" "DataLoader workers"
  why_again oom "killed by the kernel's out-of-memory killer"
}
remove_oom_cgroup() { [[ -n ${OOM_CGROUP:-} ]] && rmdir "$OOM_CGROUP" 2>/dev/null; true; }

recorded_exception() {
  run_failing record 1 -w "node[1-2]" -- /usr/bin/python3 "$SCRIPT" record
  expect record "what happened: the script raised an exception — rank 1 on node2" \
    "error file: KeyError: 'labels missing in batch 17'"
  [[ -s $RUN/error-1.json ]] || fail "record: no error-1.json in the run directory"
  grep -q "labels missing in batch 17" "$RUN/error-1.json" || fail "record: error-1.json: $(cat "$RUN/error-1.json")"
  why_again record "the script raised an exception"
}

segfault
sigkill
module_on_some_nodes
loopback_trap
port_in_use
cache_race
oom_kill
recorded_exception
echo "PASS: $TEST_NAME"
