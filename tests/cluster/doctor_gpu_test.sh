#!/usr/bin/env bash
# `muster doctor --gpu` on the simulated cluster. The nodes have no GPU, so first --gpu must say so plainly (exit 0,
# no error). Then every node gets GPUs to stand for: tests/gpu/nvidia-smi-standin on root's PATH (a per-node bind
# mount over /usr/local/sbin) answering from a fixture directory of tests/gpu/fixtures (hand-written, not recorded:
# see its README), and that fixture's kernel log bind-mounted over the node's /dev/kmsg. node1, node2 and node4 are
# healthy H100 nodes; node3 has uncorrectable ECC errors, a pending row remap, a failed remapping (fixture `ecc`)
# and, in its kernel log, XIDs of every class (the `xid-all` log). The doctor must name node3 with the cause and
# fix of each fault, and nothing on the other nodes; the JSON report must carry every node's GPU facts.
set -euo pipefail
export MUSTER_TESTBED_PREFIX=${MUSTER_TESTBED_PREFIX:-mtbg} MUSTER_TESTBED_SUBNET=${MUSTER_TESTBED_SUBNET:-10.213.126.0/24}
export MUSTER_TESTBED_SSH_INCLUDE=0
source "$(dirname "$0")/lib.sh"
require_root_and_namespaces
MUSTER=${MUSTER_BIN:?}
nodes=4
fixtures=$CLUSTER_TEST_DIR/../gpu/fixtures
standin=$CLUSTER_TEST_DIR/../gpu/nvidia-smi-standin

step "testbed up $nodes"
"$TESTBED" up $nodes >/dev/null
config=$("$TESTBED" ssh-config)
doctor() {
  "$MUSTER" doctor --ssh-config "$config" -w "node[1-$nodes]" --python /usr/bin/python3 --path /tmp \
    --no-ssh-matrix --gpu "$@"
}

step "doctor --gpu without GPUs"
rc=0; out=$(doctor 2>&1) || rc=$?
assert_eq 0 "$rc" "exit code of --gpu on nodes without GPUs (output: $out)"
assert_contains "$out" "no NVIDIA GPU on any node"

# Node K stands for GPUs of fixture $2, with the kernel log of fixture $3.
give_gpus() {
  local node=$1 smi=$2 log=$3
  "$TESTBED" exec "$node" sh -ec "
    mkdir -p /tmp/gpu-standin
    ln -sfn '$standin' /tmp/gpu-standin/nvidia-smi
    ln -sfn '$fixtures/$smi' /tmp/gpu-standin/fixture
    mount --bind /tmp/gpu-standin /usr/local/sbin
    mount --bind '$fixtures/$log/kmsg' /dev/kmsg"
}
step "node1, node2, node4: h100-healthy; node3: ecc, with xid-all's kernel log"
for k in 1 2 4; do give_gpus node$k h100-healthy h100-healthy; done
give_gpus node3 ecc xid-all
assert_contains "$("$TESTBED" exec node3 sh -c 'PATH=/usr/local/sbin:$PATH; nvidia-smi -L' 2>&1)" "GPU 0:" \
  "the stand-in answers on node3"

step "doctor --gpu with a faulty node3"
rc=0; out=$(doctor 2>&1) || rc=$?
assert_eq 2 "$rc" "exit code with node3's faults (errors) (output: $out)"
# Each of node3's faults, with its cause and fix.
assert_contains "$out" "GPU 1"
assert_contains "$out" "uncorrectable ECC"
assert_contains "$out" "logged XID 79 (GPU has fallen off the bus)"
assert_contains "$out" "logged XID 48"
assert_contains "$out" "nvidia-smi -r -i 2"
assert_contains "$out" "row remap"

rc=0; json=$(doctor --json 2>&1) || rc=$?
assert_eq 2 "$rc" "exit code of --json (output: $json)"
verdict=$(python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
gpu = r["gpu"]["nodes"]
assert [n["name"] for n in gpu] == ["node1", "node2", "node3", "node4"], gpu
assert all(len(n["facts"]["gpus"]) == 8 for n in gpu), [len(n["facts"]["gpus"]) for n in gpu]
# Errors of the GPU checks (the default checks also say, rightly, that torch on the testbed is a CPU build).
errs = [f for f in r["findings"] if f["severity"] == "error" and f["check"].startswith("gpu-")]
nodes = sorted({f["node"] for f in errs})
checks = sorted({f["check"] for f in errs})
print(",".join(nodes), ",".join(checks))' <<<"$json") || fail "unexpected JSON report: $json"
read -r err_nodes err_checks <<<"$verdict"
assert_eq node3 "$err_nodes" "the nodes with errors"
assert_contains "$err_checks" "gpu-xid"
assert_contains "$err_checks" "gpu-ecc"
echo "PASS: $TEST_NAME"
