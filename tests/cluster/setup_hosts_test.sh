#!/usr/bin/env bash
# `muster setup hosts` on nodes whose private /etc/hosts know no other node and map their own name to
# 127.0.1.1 (Debian's default): afterwards every node resolves every node to its cluster address; content
# outside the managed block is kept byte for byte; a re-run is a no-op; --fix-loopback removes only the trap.
# A node that reports a host name with a newline or spaces (an attempt to add its own lines to every node's
# /etc/hosts) is refused with the node and the name named, and no node's /etc/hosts changes.
set -euo pipefail
export MUSTER_TESTBED_PREFIX=${MUSTER_TESTBED_PREFIX:-mtbh} MUSTER_TESTBED_SUBNET=${MUSTER_TESTBED_SUBNET:-10.213.96.0/24}
export MUSTER_TESTBED_SSH_INCLUDE=0
source "$(dirname "$0")/lib.sh"
require_root_and_namespaces
MUSTER=${MUSTER_BIN:?}
nodes=3

"$TESTBED" up $nodes >/dev/null
config=$("$TESTBED" ssh-config)
for ((k = 1; k <= nodes; k++)); do
  "$TESTBED" exec "node$k" sh -c 'printf "127.0.0.1\tlocalhost\n127.0.1.1\t%s\n\n# site entries\n192.0.2.7 printer\n" "$(hostname)" >/etc/hosts'
done
"$TESTBED" exec node1 getent hosts node2 >/dev/null && fail "node1 resolves node2 before setup"

step "muster setup hosts"
out=$("$MUSTER" setup hosts --ssh-config "$config" -w "node[1-$nodes]" 2>&1) || fail "setup hosts failed: $out"
assert_contains "$out" "warning: node1 maps its own name to a loopback address"
for ((i = 1; i <= nodes; i++)); do
  for ((j = 1; j <= nodes; j++)); do
    got=$("$TESTBED" exec "node$i" getent ahostsv4 "node$j" | awk 'NR == 1 {print $1}')
    [[ $i == "$j" ]] && continue  # its own name still hits 127.0.1.1 first: that is what --fix-loopback is for
    assert_eq "$("$TESTBED" ip "node$j")" "$got" "node$i resolves node$j"
  done
done
hosts=$("$TESTBED" exec node2 cat /etc/hosts)
expected_outside=$'127.0.0.1\tlocalhost\n127.0.1.1\tnode2\n\n# site entries\n192.0.2.7 printer'
assert_eq "$expected_outside" "$(sed '/^# BEGIN muster/,/^# END muster/d' <<<"$hosts")" "lines outside the block"
[[ -n $("$TESTBED" exec node2 cat /etc/hosts.muster-backup) ]] || fail "no backup of /etc/hosts"

step "re-run is a no-op"
out=$("$MUSTER" setup hosts --ssh-config "$config" -w "node[1-$nodes]" 2>&1) || fail "second run failed: $out"
assert_eq "$nodes" "$(grep -c '/etc/hosts: unchanged' <<<"$out")" "nodes reporting unchanged"
assert_eq "$hosts" "$("$TESTBED" exec node2 cat /etc/hosts)" "/etc/hosts after the re-run"

step "--fix-loopback"
"$MUSTER" setup hosts --ssh-config "$config" -w "node[1-$nodes]" --fix-loopback >/dev/null 2>&1 || fail "--fix-loopback failed"
got=$("$TESTBED" exec node2 getent ahostsv4 node2 | awk 'NR == 1 {print $1}')
assert_eq "$("$TESTBED" ip node2)" "$got" "node2 resolves itself after --fix-loopback"
assert_contains "$("$TESTBED" exec node2 cat /etc/hosts)" "# site entries" "site entries kept"

# inject NAME: node2 reports NAME as its host name (sethostname takes any bytes); setup hosts must refuse it.
inject() {
  local name=$1 shown=$2 before after out
  before=$(for ((k = 1; k <= nodes; k++)); do "$TESTBED" exec "node$k" cat /etc/hosts; done)
  "$TESTBED" exec node2 /usr/bin/python3 -c 'import socket, sys; socket.sethostname(sys.argv[1])' "$name"
  if out=$("$MUSTER" setup hosts --ssh-config "$config" -w "node[1-$nodes]" 2>&1); then
    "$TESTBED" exec node2 hostname node2
    fail "setup hosts accepted the host name '$shown' from node2: $out"
  fi
  "$TESTBED" exec node2 hostname node2
  assert_contains "$out" "node2 reports the host name '$shown', which is not a valid host name" "the refusal"
  after=$(for ((k = 1; k <= nodes; k++)); do "$TESTBED" exec "node$k" cat /etc/hosts; done)
  assert_eq "$before" "$after" "every node's /etc/hosts after the refused injection"
  if "$TESTBED" exec node1 getent hosts bank >/dev/null; then fail "node1 resolves the injected name 'bank'"; fi
}
step "a host name with a newline, then one with spaces, is refused"
inject $'node2\n10.6.6.6 bank' 'node2\x0a10.6.6.6 bank'
inject 'node2 bank' 'node2 bank'
step "ok"
