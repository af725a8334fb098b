#!/usr/bin/env bash
# container_docker_test.sh — the docker side of muster's containers, with Debian's dockerd (docker.io) running
# inside one testbed node (container_lib.sh start_dockerd): the same code paths as podman's
# (container_launch_test.sh), with docker's own flags (--log-driver none, the attach stream instead of
# podman's passthrough):
#   1. `muster image push --container-runtime docker`: the image from the head's podman store into the node's
#      dockerd; docker then holds the same id.
#   2. DDP 1 x 2 in a docker container: exit 0, identical checksums, the container named after the job; none
#      left afterwards.
#   3. kill -9 of the head: within 2 s no container and no job process (the agent inside sees its stdin
#      close through dockerd's attach and tears down; `--rm` removes the container).
#   4. --container NAME (a container started with `docker run -d`): the ranks run inside it; a kill -9 of the
#      head leaves no job process in it within 2 s, and the container stays.
#   5. doctor --container-image --container-runtime docker: the image's id on the node, python inside.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / podman / docker.io / torch).
# shellcheck disable=SC2016  # the sh -c scripts run on the nodes expand their own variables
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"
# shellcheck source=container_lib.sh
source "$(dirname "$0")/container_lib.sh"
require_container_tools
require_docker_tools

readonly PER_NODE=2
export MUSTER_TESTBED_CONTAINERS_TMPFS=${MUSTER_TESTBED_CONTAINERS_TMPFS:-3g}
CHECKSUM_RE='rank ([0-9]+)/([0-9]+) on ([^:]+): checksum ([0-9a-f]{16})'
DOCKER_ARGS=()

# docker adds no nofile/nproc of its own (unlike podman), so only memlock needs the node's hard limit here.
set_docker_args() {
  local memlock_kb
  memlock_kb=$("$TESTBED" exec node1 bash -c 'ulimit -Hl')
  local memlock=-1
  [[ $memlock_kb == unlimited ]] || memlock=$((memlock_kb * 1024))
  DOCKER_ARGS=(--container-image "$IMAGE_NAME" --container-runtime docker --container-ulimit "memlock=$memlock")
}

docker_leftovers() {
  local job=$1 names
  names=$(node_docker node1 ps -a --filter "label=muster.job=$job" --format '{{.Names}}' 2>/dev/null || true)
  [[ -z $names ]] || echo "container $names"
  job_processes_on node1 "$job"
}

assert_docker_clean() {
  local job=$1 limit=$2 start deadline left
  start=$(now_us)
  deadline=$((start + $(secs_to_us "$limit")))
  while :; do
    left=$(docker_leftovers "$job")
    [[ -z $left ]] && break
    (($(now_us) <= deadline)) || fail "job $job: still there ${limit}s later:"$'\n'"$left"
    sleep_s 0.1
  done
  GONE_MS=$(ms_between "$start" "$(now_us)")
}

push() {
  local out=$SCRATCH/push.out
  step "1. muster image push --container-runtime docker"
  "$CONTAINER_IMAGE" load --root "$SCRATCH/head" >/dev/null || fail "container-image load --root failed"
  (source "$SCRATCH/head/env" && XDG_CACHE_HOME=$MUX_HOME "$MUSTER" image push "$IMAGE_NAME" "${MUSTER_SSH[@]}" \
    -w node1 --container-runtime docker) >"$out" 2>&1 || fail "image push to docker failed: $(cat "$out")"
  assert_eq "$IMAGE_ID" "$(node_docker node1 image inspect --format '{{.Id}}' "$IMAGE_NAME" | sed 's/^sha256://')" \
    "docker's id of $IMAGE_NAME on node1"
  step "1. docker on node1 holds $IMAGE_NAME ${IMAGE_ID:0:12}:"$'\n'"$(sed 's/^/    /' "$out")"
}

ddp() {
  local job=dk-ddp-$$ run=$SCRATCH/ddp out=$SCRATCH/ddp.out lines first line
  step "2. DDP 1 x $PER_NODE in a docker container"
  muster_launch --job-id "$job" --run-dir "$run" -w node1 --nproc-per-node "$PER_NODE" "${DOCKER_ARGS[@]}" \
    -- sh -c 'echo "pid1 $(tr "\0" " " </proc/1/cmdline | cut -d" " -f1)"; exec python3 examples/ddp_train.py --steps 10' \
    >"$out" 2>&1 || fail "DDP in docker failed: $(tail -n 30 "$out")"
  mapfile -t lines < <(grep -ohE "$CHECKSUM_RE" "$run"/rank-*.log || true)
  ((${#lines[@]} == PER_NODE)) || fail "expected $PER_NODE checksum lines: $(cat "$out")"
  for line in "${lines[@]}"; do
    [[ $line =~ $CHECKSUM_RE ]]
    first=${first:-${BASH_REMATCH[4]}}
    assert_eq "$first" "${BASH_REMATCH[4]}" "checksum of rank ${BASH_REMATCH[1]}"
  done
  assert_eq "$PER_NODE" "$(grep -c 'pid1 /sbin/docker-init' "$out" || true)" "ranks under docker's --init ($(cat "$out"))"
  assert_docker_clean "$job" 2
  step "2. checksum $first on both ranks; no container left ($GONE_MS ms after the head exited)"
}

head_killed() {
  local job=dk-headkill-$$ out=$SCRATCH/headkill.out t0
  step "3. kill -9 of the head"
  start_muster "$out" --job-id "$job" --run-dir "$SCRATCH/headkill" -w node1 --nproc-per-node "$PER_NODE" \
    "${DOCKER_ARGS[@]}" -- sh -c 'echo up; sleep 100 & wait'
  wait_until 30 eval '(($(grep -c "] up" "$out") == PER_NODE))' || fail "job did not start: $(cat "$out")"
  assert_eq "muster-$job-0" "$(node_docker node1 ps --filter "label=muster.job=$job" --format '{{.Names}}')" \
    "the job's container"
  t0=$(now_us)
  kill -KILL "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 5
  assert_docker_clean "$job" 2
  step "3. no container and no job process $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the head's SIGKILL"
}

existing_container() {
  local job=dk-existing-$$ out=$SCRATCH/existing.out t0 name=dk-svc
  step "4. --container $name (started with docker run -d)"
  node_docker node1 run -d --name "$name" --network host --ipc host --init -v "$REPO:$REPO" "$IMAGE_NAME" \
    sleep infinity >/dev/null
  muster_launch --run-dir "$SCRATCH/existing" -w node1 --nproc-per-node "$PER_NODE" --container "$name" \
    --container-runtime docker -- sh -c 'echo "rank $RANK in $(tr "\0" " " </proc/1/cmdline)"' >"$out" 2>&1 ||
    fail "job in the docker container failed: $(cat "$out")"
  assert_eq "$PER_NODE" "$(grep -c 'in /sbin/docker-init -- sleep infinity' "$out" || true)" \
    "ranks inside $name ($(cat "$out"))"
  start_muster "$out" --job-id "$job" --run-dir "$SCRATCH/existing2" -w node1 --nproc-per-node "$PER_NODE" \
    --container "$name" --container-runtime docker -- sh -c 'echo up; sleep 100 & wait'
  wait_until 30 eval '(($(grep -c "] up" "$out") == PER_NODE))' || fail "job did not start: $(cat "$out")"
  t0=$(now_us)
  kill -KILL "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 5
  assert_no_job_processes "$job" 2
  assert_eq "$name" "$(node_docker node1 ps --format '{{.Names}}')" "running containers after the head's kill"
  node_docker node1 rm -f "$name" >/dev/null
  step "4. no job process $GONE_MS ms after the head's SIGKILL; $name kept running"
}

doctor() {
  local out=$SCRATCH/doctor.out
  step "5. doctor --container-runtime docker"
  XDG_CACHE_HOME=$MUX_HOME "$MUSTER" doctor "${MUSTER_SSH[@]}" -w node1 --no-ssh-matrix \
    --container-image "$IMAGE_NAME" --container-runtime docker >"$out" 2>&1 || true
  assert_contains "$(cat "$out")" "ok    $IMAGE_NAME is ${IMAGE_ID:0:12} on node1" "doctor output"
  assert_contains "$(cat "$out")" "(python inside $IMAGE_NAME): python 3.11" "doctor output"
}

main() {
  require_torch
  build_test_image
  launch_setup 1 --containers
  start_dockerd node1
  add_cleanup "stop_dockerd node1"
  set_docker_args
  push
  ddp
  head_killed
  existing_container
  doctor
  step "PASS"
}

main
