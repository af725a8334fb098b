#!/usr/bin/env bash
# `muster doctor`'s node-to-node ssh check, fast (the default: no key exchange per pair, a ring of real
# handshakes) against the full N×N matrix, on 6 nodes with private homes (every node its own key, authorized
# everywhere). Healthy: both say every pair works, also with one node's known_hosts hashed. Then three faults the
# fast check must find off the ring (the ring is nodeK -> nodeK+1): node3's known_hosts loses node5's host key,
# node6's authorized_keys loses node2's key, and node4's sshd refuses root from every node (DenyUsers
# root@<node addresses>: keys all fine, the head still gets in). Fast names exactly the pairs the full matrix
# names, with what is missing where it knows. Last, node5's firewall drops TCP from node2 on every port but 22: the
# fast check's links (doctor/ssh/view.h) name that pair for NCCL/gloo, and its ssh verdicts stay exact (a real ssh
# confirms node2 -> node5).
set -euo pipefail
export MUSTER_TESTBED_PREFIX=${MUSTER_TESTBED_PREFIX:-mtbds} MUSTER_TESTBED_SUBNET=${MUSTER_TESTBED_SUBNET:-10.213.144.0/24}
export MUSTER_TESTBED_SSH_INCLUDE=0
source "$(dirname "$0")/lib.sh"
require_root_and_namespaces
MUSTER=${MUSTER_BIN:?}
nodes=6

step "testbed up $nodes --mesh"
"$TESTBED" up $nodes --mesh >/dev/null
config=$("$TESTBED" ssh-config)
doctor() {
  "$MUSTER" doctor --ssh-config "$config" -w "node[1-$nodes]" --python /usr/bin/python3 --path /tmp \
    --master-port 0 "$@" 2>&1
}
# The broken pairs a report names, one "from -> to" per line, sorted.
broken_pairs() { sed -n 's/.*`ssh \(node[0-9]*\)` from \(node[0-9]*\) fails.*/\2 -> \1/p' <<<"$1" | sort; }

step "healthy: fast and full agree, with node1's known_hosts hashed"
"$TESTBED" exec node1 ssh-keygen -q -H -f /root/.ssh/known_hosts >/dev/null 2>&1
"$TESTBED" exec node1 grep -q '^|1|' /root/.ssh/known_hosts || fail "node1's known_hosts was not hashed"
rc=0; out=$(doctor) || rc=$?
assert_contains "$out" "ssh works between all $((nodes * (nodes - 1))) ordered pairs" "fast, healthy (rc $rc)"
assert_contains "$out" "$nodes real handshakes" "fast uses the ring's handshakes only"
assert_contains "$out" "every node opens TCP connections to every other node" "fast: the links between all pairs"
rc=0; out=$(doctor --ssh-matrix full) || rc=$?
assert_contains "$out" "ssh works between all $((nodes * (nodes - 1))) ordered pairs" "full, healthy (rc $rc)"
out=$(doctor --no-ssh-matrix) || true
[[ $out != *"ordered pairs"* ]] || fail "--no-ssh-matrix still checked ssh: $out"

step "inject: node3 forgets node5's host key; node6 forgets node2's key; node4's sshd denies root from the nodes"
"$TESTBED" exec node3 sh -c 'ssh-keygen -q -R node5 -f /root/.ssh/known_hosts >/dev/null 2>&1; ! ssh-keygen -F node5 -f /root/.ssh/known_hosts >/dev/null' ||
  fail "could not remove node5 from node3's known_hosts"
node2_key=$("$TESTBED" exec node2 cat /root/.ssh/id_ed25519.pub)
"$TESTBED" exec node6 sh -c "grep -vF '${node2_key% *}' /root/.ssh/authorized_keys >/tmp/k; cat /tmp/k >/root/.ssh/authorized_keys"
# The node addresses are .11-.16 of the subnet, the head's is .1: root@<prefix>.1? matches the nodes only.
prefix=$("$TESTBED" ip node1); prefix=${prefix%.*}
"$TESTBED" exec node4 sh -c "echo 'DenyUsers root@$prefix.1?' >>/run/testbed/sshd_config && kill -HUP \$(cat /run/sshd.pid)"
for ((i = 0; i < 50; i++)); do  # up to 5 s for sshd to re-read its config
  "$TESTBED" exec node3 ssh -o BatchMode=yes -o ConnectTimeout=3 node4 true >/dev/null 2>&1 || break
  sleep 0.1
done
"$TESTBED" exec node3 ssh -o BatchMode=yes -o ConnectTimeout=3 node4 true >/dev/null 2>&1 &&
  fail "node4's sshd still lets node3 in after DenyUsers"
ssh -F "$config" -o BatchMode=yes node4 true || fail "node4's DenyUsers also keeps the head out"

expected=$(printf '%s\n' "node3 -> node5" "node2 -> node6" "node1 -> node4" "node2 -> node4" "node3 -> node4" \
  "node5 -> node4" "node6 -> node4" | sort)
rc=0; fast=$(doctor) || rc=$?
assert_eq 2 "$rc" "fast: exit code with broken pairs (output: $fast)"
assert_eq "$expected" "$(broken_pairs "$fast")" "fast: the broken pairs (output: $fast)"
assert_contains "$fast" '`ssh node5` from node3 fails (BatchMode: no password prompts): node3'"'"'s known_hosts has no key for node5' \
  "fast names the missing known_hosts entry"
assert_contains "$fast" 'none of them in node6:~/.ssh/authorized_keys' "fast names the missing authorized key"
rc=0; full=$(doctor --ssh-matrix full) || rc=$?
assert_eq 2 "$rc" "full: exit code with broken pairs (output: $full)"
assert_eq "$expected" "$(broken_pairs "$full")" "full: the broken pairs (output: $full)"
step "fast and full name the same $(wc -l <<<"$expected") pairs"

step "inject: node5 drops connections from node2 except to port 22"
node2_ip=$("$TESTBED" ip node2)
"$TESTBED" exec node5 iptables -A INPUT -s "$node2_ip" -p tcp --syn ! --dport 22 -j DROP
rc=0; fast=$(doctor) || rc=$?
assert_contains "$fast" "node2 cannot open a TCP connection to node5 at" "fast: the link node5's firewall drops"
assert_contains "$fast" "NCCL and gloo connect every pair of ranks" "fast: what the link is for"
links=$(grep -c 'cannot open a TCP connection' <<<"$fast" || true)
assert_eq 1 "$links" "fast: only node2 -> node5 lost its link (output: $fast)"
assert_eq "$expected" "$(broken_pairs "$fast")" "fast: the same broken ssh pairs with node2 -> node5 confirmed by ssh"
"$TESTBED" exec node5 iptables -F INPUT
step "the firewalled link named, the ssh verdicts unchanged"
