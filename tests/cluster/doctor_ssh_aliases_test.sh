#!/usr/bin/env bash
# `muster doctor`'s fast node-to-node ssh check on the ssh set-up the how-tos give users (testbed --ssh-aliases):
# each node's ~/.ssh/config Includes config.d/cluster — a `Host nodeK` / `HostName <ip>` pair per node, then one
# block for every alias and address with User, IdentityFile, IdentitiesOnly yes, UserKnownHostsFile,
# StrictHostKeyChecking yes, BatchMode yes, ConnectTimeout 5 — a known_hosts with `nodeK,<ip>` entries, and each
# node's key copied without its .pub. Healthy, the check must decide every pair from the facts: the ring's real
# handshakes only, no pair in doubt ("confirmed" empty in the JSON). It took a real ssh for every pair off the
# ring (N×(N-1) handshakes, 23-26 s at 16 nodes) when the key's public half had to come from a .pub file. Then
# node4 loses node2's key from its authorized_keys: the facts name that pair, and only that pair gets a real ssh.
set -euo pipefail
export MUSTER_TESTBED_PREFIX=${MUSTER_TESTBED_PREFIX:-mtbsa} MUSTER_TESTBED_SUBNET=${MUSTER_TESTBED_SUBNET:-10.213.150.0/24}
export MUSTER_TESTBED_SSH_INCLUDE=0
source "$(dirname "$0")/lib.sh"
require_root_and_namespaces
MUSTER=${MUSTER_BIN:?}
nodes=6

step "testbed up $nodes --mesh --ssh-aliases"
"$TESTBED" up $nodes --mesh --ssh-aliases >/dev/null
config=$("$TESTBED" ssh-config)
"$TESTBED" exec node1 test ! -e /root/.ssh/id_ed25519.pub || fail "node1 has a .pub: not the how-tos' key"
"$TESTBED" exec node1 grep -qx 'Include config.d/\*' /root/.ssh/config || fail "node1's config does not Include"
"$TESTBED" exec node1 ssh node3 true || fail "the how-tos' set-up does not let node1 ssh to node3"
doctor_json() {
  "$MUSTER" doctor --ssh-config "$config" -w "node[1-$nodes]" --python /usr/bin/python3 --path /tmp \
    --master-port 0 --json 2>/dev/null
}
# FIELD of the JSON report's ssh check: handshakes (from its finding, as every version reports it), confirmed
# (from the ssh object: "from -> to: why" lines), failed ("from -> to" lines).
ssh_field() {
  python3 -c '
import json, re, sys
report, field = json.loads(sys.stdin.read()), sys.argv[1]
ssh = report.get("ssh", {})
if field == "handshakes":
    found = [re.search(r"(\d+) real handshakes", f["message"]) for f in report["findings"] if f["check"] == "ssh"]
    print(next((m.group(1) for m in found if m), ssh.get("handshakes", "?")))
elif field == "failed":
    for f in report["findings"]:
        m = re.search(r"`ssh (node\d+)` from (node\d+) fails", f["message"])
        if f["check"] == "ssh" and m: print(m.group(2), "->", m.group(1))
else:
    for p in ssh.get(field, []): print(p["from"], "->", p["to"] + ":", p["why"])
' "$1"
}

step "healthy: every pair decided from the facts, no real ssh beyond the ring's $nodes"
rc=0; json=$(doctor_json) || rc=$?
assert_eq 0 "$rc" "doctor's exit code on the healthy testbed (report: $json)"
assert_eq "$nodes" "$(ssh_field handshakes <<<"$json")" "real handshakes (the ring's only)"
grep -q '"ssh"' <<<"$json" || fail "the JSON report has no ssh object: $json"
assert_eq "" "$(ssh_field confirmed <<<"$json")" "pairs that needed a real ssh of their own, and why"

step "inject: node4's authorized_keys loses node2's key"
node2_key=$(ssh-keygen -y -f "/tmp/muster-testbed-$MUSTER_TESTBED_PREFIX/nodes/node2/root/.ssh/id_ed25519")
"$TESTBED" exec node4 sh -c "grep -vF '${node2_key#* }' /root/.ssh/authorized_keys >/tmp/k; cat /tmp/k >/root/.ssh/authorized_keys"
"$TESTBED" exec node2 ssh node4 true 2>/dev/null && fail "node2 still gets into node4"
rc=0; json=$(doctor_json) || rc=$?
assert_eq 2 "$rc" "doctor's exit code with a broken pair (report: $json)"
assert_eq "node2 -> node4" "$(ssh_field failed <<<"$json")" "the broken pair"
assert_contains "$(ssh_field confirmed <<<"$json")" "node2 -> node4: judged failing: node2 offers 1 key, none of them in node4:~/.ssh/authorized_keys" \
  "why node2 -> node4 needed a real ssh"
assert_eq 1 "$(ssh_field confirmed <<<"$json" | wc -l)" "pairs confirmed by a real ssh"
assert_eq $((nodes + 1)) "$(ssh_field handshakes <<<"$json")" "real handshakes: the ring's and the broken pair's"
