#!/usr/bin/env bash
# `muster doctor --bandwidth` on the simulated cluster: 4 nodes whose links are capped at 1 Gbit/s, node3's at
# 100 Mbit/s (tc tbf, both directions). The doctor must flag node3's links and no other, exit 1 (a warning),
# and its figure for node2 → node3 must be within 15% of what iperf3 measures on the same link (node2 sending
# to node3, --omit 1 -t 3). Then the all-pairs mode must flag every link of node3 and only those.
set -euo pipefail
export MUSTER_TESTBED_PREFIX=${MUSTER_TESTBED_PREFIX:-mtbw} MUSTER_TESTBED_SUBNET=${MUSTER_TESTBED_SUBNET:-10.213.113.0/24}
export MUSTER_TESTBED_SSH_INCLUDE=0
source "$(dirname "$0")/lib.sh"
require_root_and_namespaces
MUSTER=${MUSTER_BIN:?}
if ! command -v iperf3 >/dev/null; then
  [[ ${MUSTER_REQUIRE_CLUSTER:-0} == 1 ]] && fail "iperf3 is missing (scripts/install-deps installs it)"
  echo "SKIP: $TEST_NAME: iperf3 is missing (the reference this test compares with)" >&2
  exit 77
fi
nodes=4

step "testbed up $nodes --rate 1gbit, node3 at 100mbit"
"$TESTBED" up $nodes --rate 1gbit >/dev/null
"$TESTBED" rate node3 100mbit
config=$("$TESTBED" ssh-config)
doctor() {
  "$MUSTER" doctor --ssh-config "$config" -w "node[1-$nodes]" --python /usr/bin/python3 --path /tmp \
    --no-ssh-matrix --bandwidth "$@"
}

step "doctor --bandwidth (ring)"
rc=0; json=$(doctor --json 2>&1) || rc=$?
assert_eq 1 "$rc" "exit code with a slow node (a warning) (output: $json)"
# Which links are flagged, node3's verdict, and the node2 → node3 figure, from the JSON report.
read -r slow_links slow_nodes muster_mbps < <(python3 -c '
import json, sys
bw = json.loads(sys.stdin.read())["bandwidth"]
assert bw["mode"] == "ring", bw["mode"]
links = [l for l in bw["links"] if l["ok"]]
assert len(links) == len(bw["links"]) == 4, bw["links"]
slow = ",".join(sorted(l["from"] + ">" + l["to"] for l in links if l["slow"]))
nodes = ",".join(n["name"] for n in bw["nodes"] if n["slow"])
fig = [l["mbps"] for l in links if (l["from"], l["to"]) == ("node2", "node3")][0]
print(slow, nodes or "-", fig)' <<<"$json") || fail "unexpected JSON report: $json"
assert_eq "node2>node3,node3>node4" "$slow_links" "slow links in the ring"
assert_eq "node3" "$slow_nodes" "the node named as the cause"
out=$(doctor 2>&1) || true
assert_contains "$out" "node3's links are slow: node2 → node3" "the human report names node3"
assert_contains "$out" "NCCL/gloo over sockets will run at this speed"
assert_contains "$out" "fix: on node3: check the cable, NIC and switch port"
step "muster: node2 → node3 ${muster_mbps} Mbit/s"

step "iperf3 node2 → node3 (--omit 1 -t 3)"
"$TESTBED" exec node3 timeout 20 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
server=$!
add_cleanup "kill $server 2>/dev/null"
node3_ip=$("$TESTBED" ip node3)
report=""
for ((i = 0; i < 50; i++)); do  # up to 5 s for the server to listen
  report=$("$TESTBED" exec node2 timeout 15 iperf3 -c "$node3_ip" -p 5201 --omit 1 -t 3 -J 2>/dev/null) && break
  report=""
  sleep 0.1
done
[[ -n $report ]] || fail "iperf3 between node2 and node3 did not run"
iperf_mbps=$(python3 -c 'import json, sys; print(round(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6, 2))' <<<"$report")
step "iperf3: ${iperf_mbps} Mbit/s"
python3 -c "import sys; m, i = $muster_mbps, $iperf_mbps; sys.exit(0 if abs(m - i) <= 0.15 * i else 1)" ||
  fail "muster's node2 → node3 figure ${muster_mbps} Mbit/s is not within 15% of iperf3's ${iperf_mbps} Mbit/s"

step "doctor --bandwidth --bandwidth-mode pairs"
rc=0; json=$(doctor --json --bandwidth-mode pairs --bandwidth-seconds 1 2>&1) || rc=$?
assert_eq 1 "$rc" "exit code in pairs mode (output: $json)"
verdict=$(python3 -c '
import json, sys
bw = json.loads(sys.stdin.read())["bandwidth"]
links = bw["links"]
assert len(links) == 12 and all(l["ok"] for l in links), links
wrong = [l["from"] + ">" + l["to"] for l in links if l["slow"] != ("node3" in (l["from"], l["to"]))]
print("ok" if not wrong else "misjudged: " + " ".join(wrong))' <<<"$json") || fail "unexpected JSON report: $json"
assert_eq ok "$verdict" "in pairs mode exactly node3's 6 links are slow"
