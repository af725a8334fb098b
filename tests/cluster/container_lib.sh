# shellcheck shell=bash
# shellcheck disable=SC2034  # IMAGE_NAME, PODMAN_RUN, GONE_MS ... are read by the test scripts
# container_lib.sh — helpers for cluster tests that run containers on the testbed (`testbed up N --containers`).
# Source it after lib.sh and after require_root_and_namespaces.
#
# Gives:
#   CONTAINER_IMAGE              path of tests/cluster/container-image (builds and caches the test image)
#   require_container_tools      skip (77) without podman, runc, mmdebstrap (fail with MUSTER_REQUIRE_CLUSTER=1)
#   build_test_image             builds the image unless cached (minutes the first time); sets IMAGE_ARCHIVE
#                                (docker-archive tar), IMAGE_ID (what every load of it gives), IMAGE_NAME
#   load_image_on NODE           streams IMAGE_ARCHIVE over ssh into NODE's podman (`podman load` reads stdin),
#                                as `podman save | ssh NODE podman load` would; fails unless NODE then has
#                                IMAGE_NAME with id IMAGE_ID
#   node_image_id NODE [IMAGE]   the id of IMAGE (default IMAGE_NAME) in NODE's store, empty if it has none
#   node_podman NODE ARGS...     podman ARGS on NODE over ssh (argv quoted for the remote shell)
#   PODMAN_LIMITS                `--ulimit nofile=... --ulimit nproc=...` at the node's own limits: what a `podman
#                                run` by hand needs on a node whose containers.conf does not tune them (podman
#                                asks for 1,048,576 of each, which this VM's runc may not set)
#   PODMAN_RUN                   the `podman run` flags that work on a testbed node for a distributed job:
#                                --rm --network host --ipc host --init PODMAN_LIMITS
#   count_containers NODE        containers (running or not) in NODE's store
#   assert_no_node_containers NODE...   no container in the NODEs' stores, no conmon running there
# For the launch tests in containers (with launch_lib.sh; they set NODES, PER_NODE, WORLD):
#   set_container_args           CONTAINER_ARGS: --container-image IMAGE_NAME with the limits this VM allows;
#                                MEMLOCK_KB: the nodes' memlock as `ulimit -l` shows it
#   leftovers JOB [NODE...], assert_clean JOB SECONDS [NODE...]   containers and job processes of JOB left on
#                                the NODEs (default all); assert_clean polls until none remain, sets GONE_MS
#   CHECKSUM_RE, check_checksums WHAT LINE...   examples/ddp_train.py's checksum lines: one per rank, each on
#                                its planned node, all identical

CONTAINER_IMAGE=$CLUSTER_TEST_DIR/container-image
IMAGE_ARCHIVE=
IMAGE_ID=
IMAGE_NAME=
# The nodes inherit this shell's limits (their sshd is started from it); nproc never above pid_max, as podman
# itself runs with (and as muster gives it: src/container/node_ulimits.h).
pid_max=$(cat /proc/sys/kernel/pid_max)
nproc_of() { local v=$1; [[ $v == unlimited || $v -gt $pid_max ]] && v=$pid_max; echo "$v"; }
PODMAN_LIMITS=(--ulimit "nofile=$(ulimit -Sn):$(ulimit -Hn)"
  --ulimit "nproc=$(nproc_of "$(ulimit -Su)"):$(nproc_of "$(ulimit -Hu)")")
PODMAN_RUN=(--rm --network host --ipc host --init "${PODMAN_LIMITS[@]}")

require_container_tools() {
  local tool missing=()
  for tool in podman runc conmon mmdebstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  ((${#missing[@]})) || return 0
  if [[ ${MUSTER_REQUIRE_CLUSTER:-0} == 1 ]]; then
    echo "FAIL: $TEST_NAME: missing ${missing[*]} (scripts/install-deps; MUSTER_REQUIRE_CLUSTER=1)" >&2
    exit 1
  fi
  echo "SKIP: $TEST_NAME: missing ${missing[*]} (scripts/install-deps installs them)" >&2
  exit 77
}

build_test_image() {
  local start=$EPOCHREALTIME
  IMAGE_ARCHIVE=$("$CONTAINER_IMAGE" build) || fail "container-image build failed"
  IMAGE_ID=$("$CONTAINER_IMAGE" id)
  IMAGE_NAME=$("$CONTAINER_IMAGE" name)
  step "image $IMAGE_NAME ${IMAGE_ID:0:12}: $IMAGE_ARCHIVE ($(du -m "$IMAGE_ARCHIVE" | cut -f1) MiB)" \
    "ready in $(((${EPOCHREALTIME/./} - ${start/./}) / 1000)) ms"
}

# Quotes each argument for the remote shell, so node_podman's argv arrives as given.
remote_argv() { printf '%q ' "$@"; }

node_podman() {
  local node=$1
  shift
  "${NODE_SSH[@]}" "$node" "podman $(remote_argv "$@")"
}

node_image_id() {
  node_podman "$1" image inspect --format '{{.Id}}' "${2:-$IMAGE_NAME}" 2>/dev/null || true
}

load_image_on() {
  local node=$1 out id
  out=$("${NODE_SSH[@]}" "$node" podman load --quiet <"$IMAGE_ARCHIVE" 2>&1) ||
    fail "podman load on $node failed: $out"
  id=$(node_image_id "$node")
  assert_eq "$IMAGE_ID" "$id" "image id of $IMAGE_NAME on $node after podman load"
}

count_containers() { node_podman "$1" ps -aq | grep -c . || true; }

CONTAINER_ARGS=()
MEMLOCK_KB=
CHECKSUM_RE='rank ([0-9]+)/([0-9]+) on ([^:]+): checksum ([0-9a-f]{16})'

# The job's container limits: muster's defaults, but memlock, which muster asks unlimited (NCCL pins memory) and
# this VM lets no process raise above its hard value (real servers' root may): given at the node's own hard value
# (in KiB as `ulimit -l` shows it: MEMLOCK_KB). nofile and nproc are NOT given: muster itself gives podman the
# node's own (issue 27 item 1), on a testbed whose containers.conf does not tune them.
set_container_args() {
  local memlock
  MEMLOCK_KB=$("$TESTBED" exec node1 bash -c 'ulimit -Hl')
  memlock=-1
  [[ $MEMLOCK_KB == unlimited ]] || memlock=$((MEMLOCK_KB * 1024))
  CONTAINER_ARGS=(--container-image "$IMAGE_NAME" --container-ulimit "memlock=$memlock")
}

# Containers (running or not) and job processes on the NODEs (default: all), as one text; empty when clean.
leftovers() {
  local job=$1 node k nodes=("${@:2}") out=""
  if ((${#nodes[@]} == 0)); then for ((k = 1; k <= NODES; k++)); do nodes+=("node$k"); done; fi
  for node in "${nodes[@]}"; do
    local names
    names=$(node_podman "$node" ps -a --filter "label=muster.job=$job" --format '{{.Names}}' 2>/dev/null || true)
    [[ -z $names ]] || out+="$node: container $names"$'\n'
    out+=$(job_processes_on "$node" "$job" | sed "s/^/$node: /")
  done
  printf '%s' "$out"
}

# assert_clean JOB SECONDS [NODE...]: polls until no container of JOB and no job process remain.
assert_clean() {
  local job=$1 limit=$2 start deadline left
  start=$(now_us)
  deadline=$((start + $(secs_to_us "$limit")))
  while :; do
    left=$(leftovers "$job" "${@:3}")
    [[ -z $left ]] && break
    (($(now_us) <= deadline)) || fail "job $job: still there ${limit}s later:"$'\n'"$left"
    sleep_s 0.1
  done
  GONE_MS=$(ms_between "$start" "$(now_us)")
}

check_checksums() {
  local what=$1 line rank first="" seen=()
  shift
  (($# == WORLD)) || fail "$what: expected $WORLD checksum lines, got $#:"$'\n'"$(printf '  %s\n' "$@")"
  for line in "$@"; do
    [[ $line =~ $CHECKSUM_RE ]] || fail "$what: not a checksum line: $line"
    rank=${BASH_REMATCH[1]}
    [[ -z ${seen[rank]:-} ]] || fail "$what: rank $rank printed twice"
    seen[rank]=1
    assert_eq "node$((rank / PER_NODE + 1))" "${BASH_REMATCH[3]}" "$what: host of rank $rank"
    first=${first:-${BASH_REMATCH[4]}}
    assert_eq "$first" "${BASH_REMATCH[4]}" "$what: checksum of rank $rank"
  done
  step "$what: ranks 0-$((WORLD - 1)) on their planned nodes, checksum $first on all"
}

assert_no_node_containers() {
  local node
  for node in "$@"; do
    assert_eq 0 "$(count_containers "$node")" "containers in $node's store"
    assert_eq "" "$("${NODE_SSH[@]}" "$node" pgrep -x conmon || true)" "conmon processes on $node"
  done
}

# start_dockerd NODE: Debian's dockerd (docker.io) inside NODE of a --containers testbed, on the default socket
# (/run/docker.sock, node-private) so that `docker` through ssh reaches it as on a server; its data under the
# node's /var/lib/containers (its store: tmpfs with MUSTER_TESTBED_CONTAINERS_TMPFS), key.json in the node's
# private /etc/docker, no iptables rules and no bridge (containers use the host network). Waits (bounded) until
# it answers. It dies with the node (`testbed down`), mounts and all; stop_dockerd stops it earlier.
require_docker_tools() {
  local tool missing=()
  for tool in dockerd containerd docker-init; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  ((${#missing[@]})) || return 0
  if [[ ${MUSTER_REQUIRE_CLUSTER:-0} == 1 ]]; then
    echo "FAIL: $TEST_NAME: missing ${missing[*]} (scripts/install-deps: docker.io; MUSTER_REQUIRE_CLUSTER=1)" >&2
    exit 1
  fi
  echo "SKIP: $TEST_NAME: missing ${missing[*]} (scripts/install-deps installs docker.io)" >&2
  exit 77
}

# shellcheck disable=SC2016  # the sh -c script runs in the node
start_dockerd() {
  local node=$1 i
  "$TESTBED" exec "$node" sh -c 'mkdir -p /var/lib/containers/docker /run/muster-dockerd
    setsid dockerd --data-root /var/lib/containers/docker --iptables=false --ip6tables=false --bridge=none \
      --storage-driver overlay2 --pidfile /run/muster-dockerd/pid >/run/muster-dockerd/log 2>&1 </dev/null &'
  for ((i = 0; i < 300; i++)); do
    "${NODE_SSH[@]}" "$node" docker version --format '{{.Server.Version}}' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  fail "dockerd on $node did not answer in 30 s: $("$TESTBED" exec "$node" tail -n 20 /run/muster-dockerd/log)"
}

stop_dockerd() {
  local node=$1
  "$TESTBED" exec "$node" sh -c 'kill -TERM "$(cat /run/muster-dockerd/pid)"; i=0
    while [ -e /run/muster-dockerd/pid ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done' || true
}

node_docker() {
  local node=$1
  shift
  "${NODE_SSH[@]}" "$node" "docker $(remote_argv "$@")"
}
