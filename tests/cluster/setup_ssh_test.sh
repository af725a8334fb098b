#!/usr/bin/env bash
# `muster setup ssh` on nodes that start with the head's key only (no node-to-node ssh): afterwards every
# ordered pair `ssh nodeI nodeJ true` works; a second run changes no file (byte-identical); keys that were
# in authorized_keys before are still there.
set -euo pipefail
export MUSTER_TESTBED_PREFIX=${MUSTER_TESTBED_PREFIX:-mtbs} MUSTER_TESTBED_SUBNET=${MUSTER_TESTBED_SUBNET:-10.213.80.0/24}
export MUSTER_TESTBED_SSH_INCLUDE=0
source "$(dirname "$0")/lib.sh"
require_root_and_namespaces
MUSTER=${MUSTER_BIN:?}
nodes=4

step "testbed up $nodes (no mesh)"
"$TESTBED" up $nodes >/dev/null
config=$("$TESTBED" ssh-config)
state=$(dirname "$(dirname "$config")")
ssh_files() { cat "$state"/nodes/node*/root/.ssh/{authorized_keys,known_hosts} | md5sum; }
pair_works() { "$TESTBED" exec "node$1" ssh -o BatchMode=yes -o ConnectTimeout=3 "node$2" true >/dev/null 2>&1; }

pair_works 1 2 && fail "node1 -> node2 works before setup: the test proves nothing"
head_key_before=$(head -1 "$state/nodes/node3/root/.ssh/authorized_keys")

step "muster setup ssh --dry-run changes nothing"
before=$(ssh_files)
out=$("$MUSTER" setup ssh --ssh-config "$config" -w "node[1-$nodes]" --dry-run 2>&1) || fail "dry run failed: $out"
assert_contains "$out" "would-create" "dry run"
assert_eq "$before" "$(ssh_files)" "files after --dry-run"
pair_works 1 2 && fail "node1 -> node2 works after a dry run"

step "muster setup ssh"
out=$("$MUSTER" setup ssh --ssh-config "$config" -w "node[1-$nodes]" 2>&1) || fail "setup ssh failed: $out"
assert_contains "$out" "ssh works between all $((nodes * (nodes - 1))) ordered pairs"
for ((i = 1; i <= nodes; i++)); do
  for ((j = 1; j <= nodes; j++)); do
    ((i == j)) || pair_works $i $j || fail "ssh node$i -> node$j fails after setup"
  done
done
assert_contains "$(cat "$state/nodes/node3/root/.ssh/authorized_keys")" "$head_key_before" "the head's key is kept"

step "second run: nothing changes"
after_first=$(ssh_files)
out=$("$MUSTER" setup ssh --ssh-config "$config" -w "node[1-$nodes]" 2>&1) || fail "second setup ssh failed: $out"
assert_eq "$after_first" "$(ssh_files)" "authorized_keys/known_hosts after the second run"
step "ok"
