#!/usr/bin/env bash
# `muster doctor` on the simulated cluster: a healthy 8-node cluster passes every check (exit 0) in under 3 s
# of wall time (2.5 times the plain ssh matrix where this machine is too slow for 3 s, see below), first
# contact included (cold ssh, muster copied to every node); then each injected
# fault is named with its node and fix: two nodes with the same hostname, a node mapping its own name to
# 127.0.1.1, ssh from node2 to node5 broken, a node with a different torch version (a fake torch earlier on
# its PYTHONPATH), a code directory missing on one node and one file differing on another.
set -euo pipefail
export MUSTER_TESTBED_PREFIX=${MUSTER_TESTBED_PREFIX:-mtbd} MUSTER_TESTBED_SUBNET=${MUSTER_TESTBED_SUBNET:-10.213.112.0/24}
export MUSTER_TESTBED_SSH_INCLUDE=0
source "$(dirname "$0")/lib.sh"
require_root_and_namespaces
MUSTER=${MUSTER_BIN:?}
nodes=8
bound_s=3  # the issue's bound for a healthy 8-node cluster (raised below on a machine too slow for it)
# A directory bind-mounted at the same path into every node (an NFS share, as far as the nodes can tell).
shared=$(mktemp -d /tmp/muster-doctor-shared.XXXXXX)
add_cleanup "rm -rf '$shared'"
export MUSTER_TESTBED_SHARE=$MUSTER_TESTBED_SHARE:$shared

step "testbed up $nodes --mesh"
"$TESTBED" up $nodes --mesh >/dev/null
config=$("$TESTBED" ssh-config)
# A code directory on every node's private /data, identical to start with.
for ((k = 1; k <= nodes; k++)); do
  "$TESTBED" exec "node$k" sh -c 'mkdir -p /data/code && printf "print(1)\n" >/data/code/train.py && printf "x\n" >/data/code/util.py'
done
doctor() { "$MUSTER" doctor --ssh-config "$config" -w "node[1-$nodes]" --python /usr/bin/python3 --path /data/code "$@" 2>&1; }
printf 'print(1)\n' >"$shared/train.py"

# All nodes share this machine's cores, so the N×N ssh check costs N times what it would on a cluster. The
# floor: the same 56 handshakes with plain ssh, all at once. Where that alone takes more than a second (a slow
# or loaded machine: 6-7 s on a 2-core VM whose process creation is slow), the bound is 2.5 times the floor,
# which still fails a doctor that adds real work of its own (a serial matrix would take 8 times the floor).
step "calibrate: the node-to-node ssh matrix with plain ssh"
start=$EPOCHREALTIME
for ((i = 1; i <= nodes; i++)); do
  "$TESTBED" exec "node$i" bash -c 'for ((j = 1; j <= $1; j++)); do
    ((j == $2)) || ssh -o BatchMode=yes -o ConnectTimeout=5 -o KexAlgorithms=curve25519-sha256 "node$j" true &
  done; wait' _ "$nodes" "$i" &
done
wait
floor=$(python3 -c "print(round($EPOCHREALTIME - $start, 2))")
bound_s=$(python3 -c "print(max($bound_s, round(2.5 * $floor, 1) if $floor > 1 else 0))")
step "plain ssh matrix: ${floor} s; bound for doctor: ${bound_s} s"

step "healthy cluster"
start=$EPOCHREALTIME
rc=0; out=$(doctor) || rc=$?
elapsed=$(python3 -c "print(round($EPOCHREALTIME - $start, 2))")
assert_eq 0 "$rc" "exit code on a healthy cluster (output: $out)"
assert_contains "$out" "0 errors, 0 warnings"
assert_contains "$out" "ssh works between all $((nodes * (nodes - 1))) ordered pairs"
assert_contains "$out" "export NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0"
assert_contains "$out" "port 29500 is free on node1 and every node reaches" "master port check"
out=$(doctor --path "$shared" --no-ssh-matrix) || fail "doctor with a shared path failed: $out"
assert_contains "$out" "$shared: one shared filesystem" "the bind-mounted path is reported shared"
assert_contains "$out" "/data/code: node-local on every node" "/data is reported node-local"
[[ -z $(ls -A "$shared" | grep muster-doctor || true) ]] || fail "doctor left its token file in $shared"
python3 -c "import sys; sys.exit(0 if $elapsed < $bound_s else 1)" ||
  fail "doctor on a healthy $nodes-node cluster took ${elapsed} s (bound: ${bound_s} s, plain ssh matrix ${floor} s; load: $(cut -d' ' -f1-3 /proc/loadavg))"
step "healthy: ok in ${elapsed} s"

step "inject faults"
"$TESTBED" exec node4 hostname node3                                          # duplicate hostname
"$TESTBED" exec node2 sh -c 'printf "127.0.1.1 node2\n" | cat - /etc/hosts >/tmp/h && cat /tmp/h >/etc/hosts'
"$TESTBED" exec node1 /usr/bin/python3 -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 29500)); s.listen(); time.sleep(60)' &  # master port taken (SO_REUSEADDR, as TCPStore)
add_cleanup "kill $! 2>/dev/null"
for ((i = 0; i < 50; i++)); do  # up to 5 s for the listener to start
  "$TESTBED" exec node1 ss -ltn | grep -q ':29500 ' && break
  sleep 0.1
done
"$TESTBED" exec node1 ss -ltn | grep -q ':29500 ' || fail "could not occupy port 29500 on node1 for the test"
node2_key=$("$TESTBED" exec node2 cat /root/.ssh/id_ed25519.pub)
"$TESTBED" exec node5 sh -c "grep -vF '${node2_key% *}' /root/.ssh/authorized_keys >/tmp/k; cat /tmp/k >/root/.ssh/authorized_keys"
# A torch 9.9.9 earlier on node6's PYTHONPATH (bash reads ~/.bashrc for ssh commands, so the agent has it).
"$TESTBED" exec node6 sh -c 'mkdir -p /data/fake/torch-9.9.9.dist-info &&
  printf "Metadata-Version: 2.1\nName: torch\nVersion: 9.9.9\n" >/data/fake/torch-9.9.9.dist-info/METADATA &&
  echo "export PYTHONPATH=/data/fake" >>/root/.bashrc'
"$TESTBED" exec node3 rm -rf /data/code                                       # code dir missing
"$TESTBED" exec node1 sh -c 'printf "print(2)\n" >/data/code/train.py'        # one file differs

rc=0; out=$(doctor) || rc=$?
assert_eq 2 "$rc" "exit code with errors (output: $out)"
assert_contains "$out" 'node[3-4] all have the hostname "node3"' "duplicate hostname"
assert_contains "$out" "node2 resolves its own name node2 to 127.0.1.1" "loopback trap"
assert_contains "$out" "GLOO_SOCKET_IFNAME=eth0" "loopback fix"
assert_contains "$out" '`ssh node5` from node2 fails' "broken ssh pair"
[[ $(grep -c '`ssh .*` from .* fails' <<<"$out") == 1 ]] || fail "exactly one broken ssh pair expected: $out"
assert_contains "$out" "port 29500 is taken on node1" "master port in use"
assert_contains "$out" "9.9.9" "the odd torch version"
grep -q 'node6.*9\.9\.9\|9\.9\.9.*node6' <<<"$out" || fail "the odd torch version is not attributed to node6: $out"
assert_contains "$out" "/data/code" "code path finding"
assert_contains "$out" "node3" "missing code dir names node3"
assert_contains "$out" "train.py" "the differing file is named"
step "faults named"

step "launch --preflight refuses to start on this cluster"
run_dir=$(mktemp -d /tmp/muster-doctor-run.XXXXXX)
add_cleanup "rm -rf '$run_dir'"
rc=0; out=$("$MUSTER" launch --preflight --ssh-config "$config" -w "node[1-$nodes]" --run-dir "$run_dir/job" \
  -- /usr/bin/python3 -c 'print("started")' 2>&1) || rc=$?
assert_eq 1 "$rc" "launch --preflight exit code (output: $out)"
assert_contains "$out" "preflight found errors; nothing was started"
assert_contains "$out" "127.0.1.1" "the preflight report names the loopback trap"
[[ ! -e $run_dir/job ]] || fail "launch --preflight started the job anyway"
