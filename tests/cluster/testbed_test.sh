#!/usr/bin/env bash
# testbed_test.sh — the simulated cluster itself (tests/cluster/testbed), which every other cluster test
# and benchmark stands on: nodes reachable by name over real ssh, private per-node state, idempotent up,
# exact argv through exec, failure injection (kill-node, partition/heal, rate), --mesh, --containers, and a down
# that leaves nothing behind (with a leftovers check that is shown to detect leftovers).
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces).
set -euo pipefail
# Its own names and subnet, so it neither tears down nor talks to a developer's default testbed (mtb).
export MUSTER_TESTBED_PREFIX=${MUSTER_TESTBED_PREFIX:-mtbt}
export MUSTER_TESTBED_SUBNET=${MUSTER_TESTBED_SUBNET:-10.213.64.0/24}
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
require_root_and_namespaces

readonly PREFIX=$MUSTER_TESTBED_PREFIX
QUICK=(-o ConnectTimeout=1)

node_hostname() { "${NODE_SSH[@]}" "${QUICK[@]}" "$1" hostname; }
init_pid() { "$TESTBED" status | awk -v n="$1" '$1 == n {print $3}'; }

check_up_8() {
  local t0=$EPOCHREALTIME
  "$TESTBED" up 8
  local t1=$EPOCHREALTIME
  step "up 8 took $(((${t1/./} - ${t0/./}) / 1000)) ms"
  assert_eq node3 "$(node_hostname node3)" "ssh node3 hostname"
  if [[ ${MUSTER_TESTBED_SSH_INCLUDE:-1} == 1 ]]; then
    local cfg
    cfg=$(getent passwd "$(id -u)" | cut -d: -f6)/.ssh/config
    assert_eq "Include $("$TESTBED" ssh-config)" "$(head -n 1 "$cfg")" "first line of $cfg"
  fi
}

check_hostnames() {
  local k
  for ((k = 1; k <= 8; k++)); do
    assert_eq "node$k" "$("$TESTBED" exec "node$k" hostname)" "exec node$k hostname"
    assert_eq "node$k" "$(node_hostname "node$k")" "ssh node$k hostname"
  done
  assert_eq "$("$TESTBED" ip node5)" "$("${NODE_SSH[@]}" node1 getent hosts node5 | awk '{print $1}')" \
    "node5 in node1's /etc/hosts"
}

check_private_paths() {
  local tag=muster-testbed-test-$$ path
  for path in /data /tmp /dev/shm /run /root; do
    "$TESTBED" exec node1 sh -c "echo x > $path/$tag"
    assert_fails "$path/$tag written on node1 is visible on node2" "$TESTBED" exec node2 test -e "$path/$tag"
    [[ ! -e $path/$tag ]] || fail "$path/$tag written on node1 is visible on the head"
  done
  assert_eq "" "$("$TESTBED" exec node2 cat /root/.bashrc)" "node .bashrc"
  assert_eq "" "$("$TESTBED" exec node2 grep -E '127\.0\.1\.1|node2' /etc/hosts | grep 127 || true)" \
    "127.0.1.1 self-mapping in /etc/hosts"
  assert_eq node2 "$("$TESTBED" exec node2 cat /etc/hostname)" "/etc/hostname"
  "$TESTBED" exec node2 test -e /work -o -e "$CLUSTER_TEST_DIR/testbed" || fail "host filesystem not shared"
}

check_pid_namespace() {
  local ps
  ps=$("$TESTBED" exec node2 ps -e -o pid=,args=)
  assert_contains "$ps" "1 /usr/bin/bash" "node2's PID 1"
  (($(wc -l <<<"$ps") < 10)) || fail "node2 sees too many processes: $ps"
}

check_up_is_noop() {
  local before out
  before=$(init_pid node1)
  out=$("$TESTBED" up 8 2>&1)
  assert_contains "$out" "already up" "second up 8"
  assert_eq "$before" "$(init_pid node1)" "node1's PID-1 after a second up"
}

check_exec() {
  # shellcheck disable=SC2016  # the literal $HOME must arrive unexpanded
  assert_eq "<a b><><c  d><\$HOME><*><'q'>" \
    "$("$TESTBED" exec node1 printf '<%s>' 'a b' '' 'c  d' '$HOME' '*' "'q'")" "exec argv"
  local rc=0
  "$TESTBED" exec node1 sh -c 'exit 7' || rc=$?
  assert_eq 7 "$rc" "exit status through exec"
  assert_eq hello "$(echo hello | "$TESTBED" exec node1 cat)" "stdin through exec"
  assert_fails "exec on node9 of 8" "$TESTBED" exec node9 true
}

check_no_mesh_by_default() {
  assert_fails "node1 -> node2 ssh without --mesh" "$TESTBED" exec node1 ssh "${QUICK[@]}" node2 true
}

check_rate() {
  "$TESTBED" rate node4 50mbit
  assert_contains "$(tc qdisc show dev "${PREFIX}4")" "tbf" "host side qdisc of node4"
  assert_contains "$("$TESTBED" exec node4 tc qdisc show dev eth0)" "rate 50Mbit" "node side qdisc"
  if command -v iperf3 >/dev/null; then
    "$TESTBED" exec node3 iperf3 -s -1 -D -B "$("$TESTBED" ip node3)"
    sleep 0.3
    local mbit
    mbit=$("$TESTBED" exec node4 iperf3 -c "$("$TESTBED" ip node3)" -t 1 -J |
      /usr/bin/python3 -c 'import json, sys
print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))')
    step "node4 -> node3 at 50mbit: $mbit Mbit/s"
    ((mbit >= 25 && mbit <= 60)) || fail "rate 50mbit measured $mbit Mbit/s"
  fi
  "$TESTBED" rate node4 none
  assert_eq "" "$(tc qdisc show dev "${PREFIX}4" | grep tbf || true)" "qdisc after rate none"
}

check_partition() {
  "$TESTBED" partition node5
  assert_fails "ssh to partitioned node5" "${NODE_SSH[@]}" "${QUICK[@]}" node5 true
  assert_contains "$("$TESTBED" status)" "partitioned" "status"
  assert_fails "node5 -> node1 while partitioned" "$TESTBED" exec node5 ping -c1 -W1 "$("$TESTBED" ip node1)"
  local peer
  for peer in head node2; do
    assert_ok "node1 -> $peer while node5 is partitioned" \
      "$TESTBED" exec node1 ping -c1 -W1 "$("$TESTBED" ip "$peer")"
  done
  "$TESTBED" heal node5
  assert_eq node5 "$(node_hostname node5)" "ssh node5 after heal"
}

check_kill_node() {
  "$TESTBED" kill-node node6
  assert_fails "ssh to killed node6" "${NODE_SSH[@]}" "${QUICK[@]}" node6 true
  local rc=0
  "$TESTBED" exec node6 true 2>/dev/null || rc=$?
  assert_eq 255 "$rc" "exec on a dead node"
  assert_contains "$("$TESTBED" status | grep node6)" "dead" "status of node6"
  assert_eq node7 "$(node_hostname node7)" "ssh node7 after node6 died"
  "$TESTBED" kill-node node8 --silent
  local err
  err=$("${NODE_SSH[@]}" "${QUICK[@]}" node8 true 2>&1) && fail "ssh to node8 after kill-node --silent worked"
  assert_contains "$err" "timed out" "ssh to a silently killed node"
  "$TESTBED" up 8 2>/dev/null  # a dead node: up recreates the testbed
  assert_eq node6 "$(node_hostname node6)" "ssh node6 after up"
}

check_mesh() {
  "$TESTBED" up 3 --mesh
  assert_eq node2 "$("$TESTBED" exec node1 ssh node2 hostname)" "node1: ssh node2 hostname (--mesh)"
  assert_eq node1 "$("$TESTBED" exec node3 ssh "$("$TESTBED" ip node1)" hostname)" "node3: ssh <node1 ip>"
  assert_eq node3 "$(node_hostname node3)" "head: ssh node3 (--mesh)"
}

assert_no_leftovers() {
  local out rc=0
  out=$("$TESTBED" leftovers) || rc=$?
  assert_eq "0:" "$rc:$out" "testbed leftovers after $1"
}

check_down_and_leftovers() {
  "$TESTBED" down
  assert_no_leftovers down
  ip netns add "$PREFIX-node99"
  add_cleanup "ip netns del $PREFIX-node99 2>/dev/null"
  local out rc=0
  out=$("$TESTBED" leftovers) || rc=$?
  assert_eq 1 "$rc" "leftovers exit status with a stray netns"
  assert_contains "$out" "netns $PREFIX-node99" "leftovers output"
  "$TESTBED" down
  assert_no_leftovers "down of a stray netns"
}

check_crash_recovery() {
  "$TESTBED" up 2
  local state
  state=$(dirname "$(dirname "$("$TESTBED" ssh-config)")")
  rm -rf "$state"  # a crashed run that lost its state dir: namespaces, links, processes, Include remain
  assert_fails "leftovers after losing the state dir" "$TESTBED" leftovers
  "$TESTBED" down
  assert_no_leftovers "down without a state dir"
  "$TESTBED" up 2
  kill -KILL "$(init_pid node1)" "$(init_pid node2)"  # stale pids, state dir intact
  "$TESTBED" up 2 2>/dev/null
  assert_eq node2 "$(node_hostname node2)" "ssh node2 after recovering"
  "$TESTBED" down
  assert_no_leftovers "recovery"
}

# --containers: podman in each node with a store, /etc/containers and cgroups of its own; a crashed run (state
# dir lost, a container still running) is found by leftovers and removed by down. No image needed: the
# container's root is the host's (--rootfs /:O, an overlay). Skipped without podman/runc.
check_containers() {
  if ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
    [[ ${MUSTER_REQUIRE_CLUSTER:-0} != 1 ]] || fail "podman and runc are required (scripts/install-deps)"
    step "check_containers skipped: no podman/runc"
    return 0
  fi
  "$TESTBED" up 2 --containers
  assert_contains "$("$TESTBED" status)" "containers yes" "status of a --containers testbed"
  # (The node's own nofile and nproc: podman would ask for 1,048,576 of each, which no process here may set.)
  local nproc limits pid_max
  pid_max=$(cat /proc/sys/kernel/pid_max)
  nproc=$(ulimit -Hu)
  [[ $nproc != unlimited && $nproc -le $pid_max ]] || nproc=$pid_max
  limits="--ulimit nofile=$(ulimit -Sn):$(ulimit -Hn) --ulimit nproc=$nproc:$nproc"
  # shellcheck disable=SC2086  # $limits: the flags, split
  assert_eq node1 "$("${NODE_SSH[@]}" node1 podman run --rm --network host $limits --rootfs /:O hostname)" \
    "hostname in a container on node1 (through ssh)"
  assert_eq runc "$("$TESTBED" exec node2 podman info --format '{{.Host.OCIRuntime.Name}}')" "runtime on node2"
  # shellcheck disable=SC2086  # $limits: the flags, split
  "$TESTBED" exec node1 podman run -d --name stray --network host $limits --rootfs /:O sleep 600 >/dev/null
  assert_eq stray "$("$TESTBED" exec node1 podman ps --format '{{.Names}}')" "containers on node1"
  assert_eq "" "$("$TESTBED" exec node2 podman ps -a --format '{{.Names}}')" "containers on node2"
  local state out rc=0
  state=$(dirname "$(dirname "$("$TESTBED" ssh-config)")")
  rm -rf --one-file-system "$state"  # a crashed run: the container, its conmon and the nodes' cgroups remain
  out=$("$TESTBED" leftovers) || rc=$?
  assert_eq 1 "$rc" "leftovers exit status after losing a --containers testbed's state dir"
  assert_contains "$out" "cgroup " "leftovers (node cgroups)"
  assert_contains "$out" "conmon" "leftovers (the container's conmon)"
  "$TESTBED" down
  assert_no_leftovers "down of a --containers testbed without its state dir"
}

main() {
  step "recover from any earlier run"
  "$TESTBED" down 2>/dev/null
  local check
  for check in check_up_8 check_hostnames check_private_paths check_pid_namespace check_up_is_noop \
    check_exec check_no_mesh_by_default check_rate check_partition check_kill_node check_mesh \
    check_down_and_leftovers check_crash_recovery check_containers; do
    step "$check"
    "$check"
  done
  step "PASS"
}

main
