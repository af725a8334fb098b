#!/usr/bin/env bash
# container_infra_test.sh — what muster's container tests stand on: `testbed up --containers` and the test image
# (tests/cluster/container-image), without muster itself:
#   1. the image builds (or comes from the cache) and carries one id;
#   2. every node has a podman store of its own (a 3 GiB tmpfs, MUSTER_TESTBED_CONTAINERS_TMPFS: twice as fast
#      as on disk; testbed_test.sh covers the store on disk), configured by the testbed's containers.conf
#      (runc), reached through sshd like muster's agent: an image loaded on node1 is not on node2;
#   3. the archive streamed over ssh into each node's `podman load` gives the same image id everywhere;
#   4. `podman run --rm --network host --ipc host --init` on each node: python3 and torch (gloo) inside, the
#      node's hostname, eth0 with the node's address;
#   5. a gloo all_reduce between two containers, one per node, over the nodes' network (host network);
#   6. a container whose `podman run` client is killed with SIGKILL keeps running (podman's behaviour that a
#      launcher must handle), `testbed leftovers` reports it, and `testbed down` removes it and everything
#      else: no process, cgroup, mount, netns or state dir remains.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / podman / mmdebstrap).
# lib.sh before `set -e`: with MUSTER_TESTBED_SSH_INCLUDE=0 it runs `testbed ssh-config`, which fails (but
# still prints the path) while the testbed is down.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=container_lib.sh
source "$(dirname "$0")/container_lib.sh"
require_container_tools

readonly NODES=(node1 node2)

# Prints "HOSTNAME IFACES ADDRESS GLOO" from inside a container on NODE: the address is the source address
# the kernel picks to reach the head (a UDP connect sends nothing).
container_facts() {
  local node=$1 head_ip
  head_ip=$("$TESTBED" ip head)
  node_podman "$node" run "${PODMAN_RUN[@]}" "$IMAGE_NAME" python3 -c '
import os, socket, sys, torch
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect((sys.argv[1], 9))
print(socket.gethostname(), ",".join(sorted(os.listdir("/sys/class/net"))), s.getsockname()[0],
      torch.distributed.is_gloo_available())' "$head_ip"
}

check_private_stores() {
  local node
  assert_eq runc "$(node_podman node1 info --format '{{.Host.OCIRuntime.Name}}')" "OCI runtime on node1"
  assert_eq /var/lib/containers/storage "$(node_podman node2 info --format '{{.Store.GraphRoot}}')" \
    "graph root on node2"
  for node in "${NODES[@]}"; do
    assert_eq 0 "$(node_podman "$node" images -q | grep -c . || true)" "images on a fresh $node"
  done
  load_image_on node1
  assert_eq "" "$(node_image_id node2)" "image on node2 after loading it on node1 only"
}

check_load_everywhere() {
  local start=$EPOCHREALTIME
  load_image_on node2
  step "node2: podman load over ssh in $(((${EPOCHREALTIME/./} - ${start/./}) / 1000)) ms; id $IMAGE_ID on both nodes"
}

check_run_on_nodes() {
  local node facts
  for node in "${NODES[@]}"; do
    facts=$(container_facts "$node") || fail "podman run on $node failed: $facts"
    assert_eq "$node eth0,lo $("$TESTBED" ip "$node") True" "$facts" "hostname, interfaces, address, gloo in a container on $node"
  done
  assert_no_node_containers "${NODES[@]}"
}

check_allreduce() {
  local master port=29561 outs=() pids=() k rc
  master=$("$TESTBED" ip node1)
  for k in 0 1; do
    outs[k]=$(mktemp)
    add_cleanup "rm -f ${outs[k]}"
    node_podman "${NODES[k]}" run -i "${PODMAN_RUN[@]}" -e MASTER_ADDR="$master" -e MASTER_PORT="$port" \
      -e WORLD_SIZE=2 -e RANK="$k" "$IMAGE_NAME" timeout 60 python3 - >"${outs[k]}" 2>&1 <<'EOF' &
import socket, torch, torch.distributed as dist
dist.init_process_group("gloo")
x = torch.full((3,), float(dist.get_rank() + 1))
dist.all_reduce(x)
print(f"rank {dist.get_rank()} on {socket.gethostname()}: {x.tolist()}", flush=True)
dist.destroy_process_group()
EOF
    pids[k]=$!
  done
  for k in 0 1; do
    rc=0
    wait "${pids[k]}" || rc=$?
    ((rc == 0)) || fail "all_reduce rank $k exited $rc: $(cat "${outs[k]}")"
    assert_contains "$(cat "${outs[k]}")" "rank $k on ${NODES[k]}: [3.0, 3.0, 3.0]" "all_reduce output of rank $k"
  done
  assert_no_node_containers "${NODES[@]}"
}

# The podman client is only a client: SIGKILL to it leaves conmon and the container running.
check_client_kill_and_down() {
  local client i marker=muster-orphan-$$
  node_podman node2 run --name orphan "${PODMAN_RUN[@]}" "$IMAGE_NAME" sh -c "sleep 600; : $marker" \
    >/dev/null 2>&1 &
  add_cleanup "kill $! 2>/dev/null"
  for ((i = 0; i < 200; i++)); do
    [[ $(node_podman node2 ps --filter name=orphan --format '{{.Status}}' 2>/dev/null) == Up* ]] && break
    sleep 0.05
  done
  client=$("$TESTBED" exec node2 pgrep -f '^podman run --name orphan') || fail "no podman client on node2"
  "$TESTBED" exec node2 kill -KILL "$client"
  sleep 1
  assert_contains "$(node_podman node2 ps --filter name=orphan --format '{{.Status}}')" "Up" \
    "container after SIGKILL to its podman client"
  local left
  left=$("$TESTBED" leftovers || true)
  assert_contains "$left" "$marker" "testbed leftovers while the orphaned container runs"
  assert_contains "$left" "cgroup " "testbed leftovers (node cgroups) while up"
  "$TESTBED" down
  left=$("$TESTBED" leftovers) || fail "leftovers after down: $left"
  [[ -z $(pgrep -f "$marker" || true) ]] || fail "the orphaned container's process survived down"
}

main() {
  "$TESTBED" down 2>/dev/null
  build_test_image
  step "testbed up 2 --containers"
  MUSTER_TESTBED_CONTAINERS_TMPFS=${MUSTER_TESTBED_CONTAINERS_TMPFS:-3g} "$TESTBED" up 2 --containers
  step "private stores, containers.conf through ssh; load on node1 only"
  check_private_stores
  step "load on node2"
  check_load_everywhere
  step "podman run on each node"
  check_run_on_nodes
  step "gloo all_reduce between containers on node1 and node2"
  check_allreduce
  step "SIGKILL to a podman client; down"
  check_client_kill_and_down
  step "PASS"
}

main
