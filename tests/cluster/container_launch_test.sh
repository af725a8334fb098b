#!/usr/bin/env bash
# container_launch_test.sh — `muster image push`, `muster launch --container-image` / `--container` and
# `muster doctor --container-image` with real podman on 3 testbed nodes (`testbed up 3 --containers --mesh`),
# the image built from Debian packages (tests/cluster/container-image, python3-torch):
#   1. push: the image in the head's own store goes to 3 nodes that lack it (through the relay chain), every
#      node then holds the same id; a second push moves nothing. 1b. --stage DIR: a fresh private directory below
#      DIR, never a planted DIR/<id> link (whose target the removal round would empty); the nodes' image
#      directories are private (0700).
#   2. DDP 3 x 2 in containers (examples/ddp_train.py): exit 0, every rank's checksum line in its rank log, on
#      the planned node, all checksums identical; each rank ran inside a container named after the job
#      (muster-<job>-<node rank>) with the working directory mounted at the same path, the limits asked for,
#      the job's environment (--env), and a --sync DIR (a head-only directory: the nodes' /tmp is their own)
#      synced to every node first and mounted at the same path; no container and no job process left afterwards.
#   3. Byte-exact logs: what each rank wrote (escapes, invalid UTF-8, CRLF, \r, 200 KB lines, a partial last
#      line) is what its rank-N.log holds (cmp against the same script run on the head).
#   4. --per-node: torchrun inside the containers, 3 nodes x 2: the same identical checksums.
#   5. kill -9 of a DDP worker inside a container on node3: the head exits 137 within 5 s naming that rank on
#      node3, and 2 s later no container and no job process is left on any node (the bare-metal limits of
#      launch_teardown_test.sh).
#   6. kill -9 of the head: within 2 s no container and no job process on any node (launch_orphans_test.sh).
#   6b. kill -9 of the agent inside node2's container, and 6c. of the head's ssh client (or master) to node2: within 2 s no
#      job process is left on any node, the head exits non-zero naming node2, and no container is left.
#   6d. restarts in containers: node[1-3] --nnodes 2 --max-restarts 1, kill -9 of the agent inside node2's
#      container: node2 is excluded, node3 joins from the spares, attempt 2's ranks run inside containers on node1
#      and node3 and end 0; no container and no job process left on any node.
#   7. --container NAME: ranks inside running containers (started here as compose would); the job runs there,
#      and a kill -9 of the head leaves no job process in them within 2 s while the containers stay. The agent
#      runs from a fresh directory per start (/tmp/.muster-<build id>-<random>), removed once it runs.
#   8. doctor --container-image: node2 without the image and node3 holding another image under the name are
#      both named (exit 2), and `launch --preflight` starts nothing; push repairs both (node3's image replaced),
#      with the head's cache in a directory the nodes see at the same path (as a shared home): the head's cached
#      archive is still there afterwards; doctor then passes the check, with python and torch as read inside
#      the image.
#   8c. doctor --container-image reads python's packages inside the image on every node: an image per node whose
#      torch and NCCL (nvidia-nccl-cu12) metadata say node<K> (1.13.1+node<K>, 2.99.<K>): doctor --json names
#      each node with its own versions.
#   (Slurm with containers, the former 8b, is container_slurm_test.sh: it needs Slurm, this test does not.)
#   9. kill-node node3 (--heartbeat-timeout 3): the head exits non-zero naming node3 within 5 s, and no
#      container or job process is left on node1 and node2 by then.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / podman / torch).
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

readonly NODES=3 PER_NODE=2 WORLD=6 HB_TIMEOUT_S=3
readonly KILL_BOUND_MS=5000 LOST_BOUND_MS=$(((HB_TIMEOUT_S + 2) * 1000))
export MUSTER_TESTBED_CONTAINERS_TMPFS=${MUSTER_TESTBED_CONTAINERS_TMPFS:-3g}

head_store() {
  step "the image in the head's own podman store"
  "$CONTAINER_IMAGE" load --root "$SCRATCH/head" >/dev/null || fail "container-image load --root failed"
}

# muster with the head's podman store (the nodes use their own).
head_muster() { (source "$SCRATCH/head/env" && XDG_CACHE_HOME=$MUX_HOME "$MUSTER" "$@"); }

push() {
  local out=$SCRATCH/push.out node t0 ms
  step "1. muster image push to node[1-$NODES]"
  t0=$(now_us)
  head_muster image push "$IMAGE_NAME" "${MUSTER_SSH[@]}" -w "node[1-$NODES]" >"$out" 2>&1 ||
    fail "image push failed: $(cat "$out")"
  ms=$(ms_between "$t0" "$(now_us)")
  for node in node1 node2 node3; do
    assert_eq "$IMAGE_ID" "$(node_image_id "$node")" "image id on $node after the push"
    assert_contains "$(cat "$out")" "$node: loaded in" "push output"
  done
  assert_contains "$(cat "$out")" "3 of 3 nodes need it" "push output"
  [[ $(cat "$out") != *"cannot relay"* ]] || fail "push did not use the relay chain: $(cat "$out")"
  # Issue 29, item 4: the archive (hundreds of MB) takes sync's direct data path, every hop of the chain.
  assert_contains "$(cat "$out")" "file data over direct TCP, " "push output (the direct data path)"
  assert_contains "$(cat "$out")" "($NODES of $NODES hops)" "push output (every hop direct)"
  step "1. pushed to 3 nodes in $(fmt_ms "$ms") s:"$'\n'"$(sed 's/^/    /' "$out")"
  t0=$(now_us)
  head_muster image push "$IMAGE_NAME" "${MUSTER_SSH[@]}" -w "node[1-$NODES]" >"$out" 2>&1 ||
    fail "second image push failed: $(cat "$out")"
  assert_contains "$(cat "$out")" "0 of 3 nodes need it; already there: node[1-3]" "second push"
  [[ $(cat "$out") != *sending* ]] || fail "the second push sent the image again: $(cat "$out")"
  step "1. again: nothing to send, $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s"
}

# Issue 27, items 7 and 8: `image push --stage DIR` goes into a fresh private directory below DIR, never into a
# predictable DIR/<image id> that another user could have made, or made a link to one of the user's directories
# (which the removal round would empty); the directories the push's sync made on the nodes are private (0700).
push_stage() {
  local out=$SCRATCH/push-stage.out left
  step "1b. image push --stage: a fresh private directory, a planted DIR/<id> link left alone"
  assert_eq 700 "$("${NODE_SSH[@]}" node1 stat -c %a "$MUX_HOME/muster/images")" \
    "mode of the images directory the first push's sync made on node1"
  node_podman node1 rmi -f "$IMAGE_NAME" >/dev/null 2>&1 || fail "podman rmi on node1"
  # On node1: /tmp/stage/<id> is a link to a directory of the user's holding a file it must keep.
  "${NODE_SSH[@]}" node1 "rm -rf /tmp/stage /tmp/victim && mkdir -p /tmp/stage /tmp/victim && chmod 1777 /tmp/stage &&
    echo keep >/tmp/victim/keep && ln -s /tmp/victim /tmp/stage/$IMAGE_ID"
  head_muster image push "$IMAGE_NAME" "${MUSTER_SSH[@]}" -w node1 --stage /tmp/stage >"$out" 2>&1 ||
    fail "image push --stage failed: $(cat "$out")"
  assert_eq "$IMAGE_ID" "$(node_image_id node1)" "image id on node1 after the push with --stage"
  assert_eq keep "$("${NODE_SSH[@]}" node1 cat /tmp/victim/keep 2>&1)" "the file in the directory a planted link named"
  left=$("${NODE_SSH[@]}" node1 'ls -A /tmp/stage /tmp/victim')
  assert_eq "/tmp/stage:
$IMAGE_ID

/tmp/victim:
keep" "$left" "what is left in the stage directory (the planted link only) and in the linked directory"
  step "1b. pushed through a fresh private directory; the planted link and its directory untouched"
}

ddp() {
  local job=ct-ddp-$$ run=$SCRATCH/ddp out=$SCRATCH/ddp.out r lines=() found synced=$SCRATCH/synced
  step "2. DDP $NODES x $PER_NODE in containers, with --sync $synced"
  # --sync: a directory only the head has (the nodes' /tmp is their own); the ranks read it at the same path.
  mkdir -p "$synced/sub"
  echo "synced-$$" >"$synced/sub/marker"
  # Each rank also says which container it is in, its limits, an --env variable and what the synced file holds.
  start_muster "$out" --job-id "$job" --run-dir "$run" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    "${CONTAINER_ARGS[@]}" --sync "$synced" --env CT_MARK=from-the-head --env "CT_SYNCED=$synced" -- sh -c '
      echo "inside $(tr "\0" " " </proc/1/cmdline | cut -d" " -f1) memlock=$(ulimit -l) mark=$CT_MARK cwd=$(pwd)" \
        "synced=$(cat "$CT_SYNCED/sub/marker" 2>&1)"
      exec python3 examples/ddp_train.py --steps 10'
  wait_exit "$MUSTER_PID" 120
  step "muster exited $EXIT_RC after $(fmt_ms "$(ms_between "$MUSTER_START_US" "$EXIT_US")") s"
  ((EXIT_RC == 0)) || fail "DDP job in containers: exit $EXIT_RC; output:"$'\n'"$(cat "$out")"
  for ((r = 0; r < WORLD; r++)); do
    mapfile -t found < <(grep -E "$CHECKSUM_RE" "$run/rank-$r.log" || true)
    ((${#found[@]} == 1)) || fail "rank-$r.log: expected 1 checksum line: $(cat "$run/rank-$r.log")"
    lines+=("${found[0]}")
    assert_contains "$(head -n 1 "$run/rank-$r.log")" \
      "inside /run/podman-init memlock=$MEMLOCK_KB mark=from-the-head cwd=$REPO synced=synced-$$" \
      "rank $r's first line"
  done
  for ((r = 1; r <= NODES; r++)); do
    assert_eq "synced-$$" "$("$TESTBED" exec "node$r" cat "$synced/sub/marker" 2>&1)" "the synced file on node$r"
  done
  check_checksums "2. rank logs" "${lines[@]}"
  assert_clean "$job" 2
  step "2. no container and no job process left ($GONE_MS ms after the head exited)"
}

# What rank $RANK writes (dash in the image and on the head alike); see launch_logs_test.sh.
# shellcheck disable=SC2016  # expanded by the worker's sh
readonly EMIT='
printf "rank %s: start\n" "$RANK"
printf "progress   0%%\r"; sleep 0.05; printf "progress 100%%\n"
printf "crlf line 1\r\ncrlf line 2\r\n"
printf "partial "; sleep 0.2; printf "and the rest of the line\n"
printf "esc \033[31mred\033[0m tab\there bytes \377\376\001 utf8 ünï ✓\n"
i=0; while [ $i -lt 2000 ]; do printf "bulk %s %05d ................................\n" "$RANK" $i; i=$((i + 1)); done
head -c 200000 /dev/zero | tr "\0" "y"; printf "\n"
printf "last line without newline %s" "$RANK"
'

exact_logs() {
  local run=$SCRATCH/exact out=$SCRATCH/exact.out r expected
  step "3. byte-exact rank logs from containers"
  muster_launch --run-dir "$run" -w "node[1-2]" --nproc-per-node "$PER_NODE" "${CONTAINER_ARGS[@]}" \
    -- sh -c "$EMIT" >"$out" 2>&1 || fail "exact-logs job failed: $(tail -n 20 "$out")"
  for ((r = 0; r < 4; r++)); do
    expected=$SCRATCH/expected-$r
    RANK=$r sh -c "$EMIT" >"$expected"
    cmp "$expected" "$run/rank-$r.log" || fail "rank-$r.log differs from what rank $r wrote"
  done
  step "3. 4 rank logs byte-identical to what the ranks wrote ($(stat -c %s "$run/rank-0.log") bytes each)"
}

per_node_torchrun() {
  local run=$SCRATCH/torchrun out=$SCRATCH/torchrun.out lines
  step "4. --per-node: torchrun in containers on $NODES nodes"
  muster_launch --run-dir "$run" -w "node[1-$NODES]" --per-node "${CONTAINER_ARGS[@]}" \
    -- python3 -m torch.distributed.run --nnodes '{nnodes}' --node_rank '{node_rank}' \
    --nproc_per_node "$PER_NODE" --master_addr '{master_addr}' --master_port '{master_port}' \
    --redirects 1 --tee 1 examples/ddp_train.py --steps 10 >"$out" 2>&1 ||
    fail "torchrun in containers failed: $(tail -n 30 "$out")"
  mapfile -t lines < <(grep -ohE "$CHECKSUM_RE" "$run"/rank-*.log || true)
  check_checksums "4. torchrun node logs" "${lines[@]}"
}

worker_killed() {
  local job=ct-kill9-$$ out=$SCRATCH/kill9.out victim rank t0 ms
  step "5. kill -9 of a DDP worker inside a container on node3"
  start_muster "$out" --job-id "$job" --run-dir "$SCRATCH/kill9" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    "${CONTAINER_ARGS[@]}" -- python3 examples/ddp_train.py --step-sleep 0.05 --steps 100000
  wait_until 60 grep -qE '^\[node1:0\] step +5 ' "$out" || fail "DDP job did not reach step 5 in 60 s: $(cat "$out")"
  victim=$(job_processes_on node3 "$job" | awk '/ddp_train\.py/ {print $1; exit}')
  [[ -n $victim ]] || fail "no DDP worker found on node3: $(all_job_processes "$job")"
  rank=$(proc_env node3 "$victim" RANK)
  t0=$(now_us)
  "$TESTBED" exec node3 kill -KILL "$victim"
  wait_exit "$MUSTER_PID" 15
  ms=$(ms_between "$t0" "$EXIT_US")
  step "5. kill -9 of rank $rank (pid $victim on node3) -> head exit $EXIT_RC after $(fmt_ms "$ms") s"
  assert_eq 137 "$EXIT_RC" "exit status after kill -9 of rank $rank (output: $(tail -n 20 "$out"))"
  ((ms < KILL_BOUND_MS)) || fail "head took $ms ms (>= $KILL_BOUND_MS ms) to exit after the kill"
  assert_contains "$(cat "$out")" "rank $rank on node3 failed" "head output"
  [[ $(grep -E '<- root cause' "$out") =~ ^\ +$rank\ +node3\ .*SIGKILL ]] ||
    fail "exit table: root cause is not rank $rank on node3: $(grep -E '<- root cause' "$out")"
  assert_clean "$job" 2
  step "5. no container and no job process on any node $GONE_MS ms after the head exited"
}

head_killed() {
  local job=ct-headkill-$$ out=$SCRATCH/headkill.out t0
  step "6. kill -9 of the head"
  start_muster "$out" --job-id "$job" --run-dir "$SCRATCH/headkill" -w "node[1-$NODES]" \
    --nproc-per-node "$PER_NODE" "${CONTAINER_ARGS[@]}" -- sh -c 'echo up; sleep 100 & wait'
  wait_until 30 eval '(($(grep -c "] up" "$out") == WORLD))' || fail "job did not start: $(cat "$out")"
  local k
  for ((k = 0; k < NODES; k++)); do
    assert_eq "muster-$job-$k" "$(node_podman "node$((k + 1))" ps --filter "label=muster.job=$job" \
      --format '{{.Names}}')" "the job's container on node$((k + 1))"
  done
  t0=$(now_us)
  kill -KILL "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 5
  assert_clean "$job" 2
  step "6. no container and no job process on any node $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the head's SIGKILL"
}

# start_sleep_job NAME: shell workers on every node (a grandchild each); returns once all report up.
start_sleep_job() {
  JOB=ct-$1-$$
  OUT=$SCRATCH/$1.out
  start_muster "$OUT" --job-id "$JOB" --run-dir "$SCRATCH/$1" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    "${CONTAINER_ARGS[@]}" -- sh -c 'echo up; sleep 100 & wait'
  wait_until 30 eval '(($(grep -c "] up" "$OUT") == WORLD))' || fail "$1: job did not start: $(cat "$OUT")"
}

# lost_node_cleanup WHAT T0: no job process anywhere within 2 s of the kill (launch_orphans_test's bound), the
# head exited non-zero naming node2, and no container is left 2 s after that.
lost_node_cleanup() {
  local what=$1 t0=$2
  assert_no_job_processes "$JOB" 2
  step "$what: no job process on any node $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the kill"
  wait_exit "$MUSTER_PID" 15
  ((EXIT_RC != 0 && EXIT_RC != 124)) || fail "$what: head exit $EXIT_RC; output: $(cat "$OUT")"
  assert_contains "$(cat "$OUT")" "node2" "$what: head output"
  assert_clean "$JOB" 2
  step "$what: head exited $EXIT_RC after $(fmt_ms "$(ms_between "$t0" "$EXIT_US")") s; no container" \
    "$(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the kill"
}

agent_killed() {
  local agent t0
  step "6b. kill -9 of the agent inside node2's container"
  start_sleep_job agentkill
  agent=$(agent_pids_on node2 '^/run/muster/ld.so --library-path /run/muster /run/muster/muster agent --nonce')
  [[ $(grep -c . <<<"$agent") == 1 ]] || fail "6b. expected one agent in node2's container, got: '$agent'"
  t0=$(now_us)
  "$TESTBED" exec node2 kill -KILL "$agent"
  lost_node_cleanup "6b. agent killed" "$t0"
}

ssh_killed() {
  local client t0
  step "6c. kill -9 of the head's ssh client to node2"
  start_sleep_job sshkill
  # The process that holds the head's TCP connection to node2's sshd: an ssh client of the head's, or, when the
  # head opened node2's session on its open ssh master (transport/ssh_master.h), that master.
  local ip
  ip=$("$TESTBED" ip node2)
  client=$(ss -Htnp state established dst "$ip" dport = :22 | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u || true)
  [[ $(grep -c . <<<"$client") == 1 ]] ||
    fail "6c. expected one process connected to node2's sshd, found '$client': $(ss -tnp dst "$ip")"
  t0=$(now_us)
  kill -KILL "$client"
  lost_node_cleanup "6c. ssh client killed" "$t0"
}

restart_on_spare() {
  local job=ct-spare-$$ out=$SCRATCH/spare.out agent
  step "6d. --nnodes 2 on node[1-3] in containers: kill -9 of node2's agent, node3 from the spares"
  start_muster "$out" --job-id "$job" --run-dir "$SCRATCH/spare" -w "node[1-$NODES]" --nnodes 2 --max-restarts 1 \
    --grace 1 --nproc-per-node "$PER_NODE" "${CONTAINER_ARGS[@]}" -- sh -c \
    'if [ "$MUSTER_ATTEMPT" = 1 ]; then [ -e /run/.containerenv ] && echo "attempt 1 rank $RANK on $MUSTER_NODE in a container"; exit 0; fi
     echo up; sleep 100 & wait'
  wait_until 30 eval '(($(grep -c "] up" "$out") == 2 * PER_NODE))' || fail "6d. job did not start: $(cat "$out")"
  agent=$(agent_pids_on node2 '^/run/muster/ld.so --library-path /run/muster /run/muster/muster agent --nonce')
  [[ $(grep -c . <<<"$agent") == 1 ]] || fail "6d. expected one agent in node2's container, got: '$agent'"
  "$TESTBED" exec node2 kill -KILL "$agent"
  wait_exit "$MUSTER_PID" 60
  assert_eq 0 "$EXIT_RC" "6d. exit status with node3 taking node2's place (output: $(tail -n 20 "$out"))"
  assert_contains "$(cat "$out")" "excluded; attempt 2 of 2 on node[1,3] (node3 from the spares)" "6d. decision line"
  local r
  for ((r = 0; r < 2 * PER_NODE; r++)); do
    assert_contains "$(cat "$SCRATCH/spare/rank-$r.log")" "attempt 1 rank $r on node$((r < PER_NODE ? 1 : 3)) in a container" \
      "6d. rank-$r.log"
  done
  assert_clean "$job" 5
  step "6d. attempt 2 ran in containers on node1 and node3 (exit 0); no container or job process left"
}

existing_containers() {
  local job=ct-existing-$$ out=$SCRATCH/existing.out node t0 name=ct-svc
  step "7. --container $name: ranks inside running containers"
  for node in node1 node2 node3; do
    node_podman "$node" run -d --name "$name" --label ct.test=1 --network host --ipc host --init "${PODMAN_LIMITS[@]}" -v "$REPO:$REPO" \
      "$IMAGE_NAME" sleep infinity >/dev/null
  done
  muster_launch --run-dir "$SCRATCH/existing" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    --container "$name" -- sh -c 'echo "rank $RANK in $(cat /proc/1/cmdline | tr "\0" " ")"' >"$out" 2>&1 ||
    fail "job in existing containers failed: $(cat "$out")"
  assert_eq "$WORLD" "$(grep -c 'in /run/podman-init -- sleep infinity' "$out" || true)" \
    "ranks that ran inside the running containers ($(cat "$out"))"
  # Issue 27, item 10: the agent ran from a fresh directory of its own, gone once it ran (never a fixed
  # /tmp/.muster-<build id> that a process in the container could make first or swap files in).
  assert_eq "" "$(node_podman node1 exec "$name" sh -c 'ls -a /tmp | grep "^\.muster-" || true')" \
    "agent directories left in the container's /tmp after a job"
  start_muster "$out" --job-id "$job" --run-dir "$SCRATCH/existing2" -w "node[1-$NODES]" \
    --nproc-per-node "$PER_NODE" --container "$name" -- sh -c 'echo up; sleep 100 & wait'
  wait_until 30 eval '(($(grep -c "] up" "$out") == WORLD))' || fail "job did not start: $(cat "$out")"
  local agent_dir
  agent_dir=$(node_podman node1 exec "$name" sh -c 'cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" "\n" |
    grep -o "^/tmp/\.muster-[0-9a-f]*-[0-9a-f]*" | sort -u')
  [[ $agent_dir =~ ^/tmp/\.muster-[0-9a-f]{16}-[0-9a-f]{16}$ ]] ||
    fail "the running agent's directory in the container is not a fresh one: '$agent_dir'"
  node_podman node1 exec "$name" test ! -e "$agent_dir" || fail "the running agent's directory $agent_dir is still there"
  t0=$(now_us)
  kill -KILL "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 5
  assert_no_job_processes "$job" 2
  for node in node1 node2 node3; do
    assert_eq "$name" "$(node_podman "$node" ps --filter label=ct.test=1 --format '{{.Names}}')" "$node's container"
    node_podman "$node" rm -f -t 0 "$name" >/dev/null
  done
  step "7. no job process $GONE_MS ms after the head's SIGKILL; the containers kept running"
}

doctor_images() {
  local out=$SCRATCH/doctor.out rc=0
  step "8. doctor: node2 without the image, node3 with another image under its name"
  node_podman node2 rmi -f "$IMAGE_NAME" >/dev/null
  node_podman node3 run --name ct-change --network host "${PODMAN_LIMITS[@]}" "$IMAGE_NAME" sh -c 'echo changed > /changed' >/dev/null
  node_podman node3 commit -q ct-change "$IMAGE_NAME" >/dev/null
  node_podman node3 rm ct-change >/dev/null
  XDG_CACHE_HOME=$MUX_HOME "$MUSTER" doctor "${MUSTER_SSH[@]}" -w "node[1-$NODES]" --no-ssh-matrix \
    --container-image "$IMAGE_NAME" >"$out" 2>&1 || rc=$?
  assert_eq 2 "$rc" "doctor's exit status (output: $(cat "$out"))"
  assert_contains "$(cat "$out")" "ERROR node2: $IMAGE_NAME is not on node2" "doctor output"
  assert_contains "$(cat "$out")" "fix: muster image push $IMAGE_NAME -w node2" "doctor output"
  assert_contains "$(cat "$out")" "ERROR node3: $IMAGE_NAME differs: node3 has" "doctor output"
  assert_contains "$(cat "$out")" "node1 has ${IMAGE_ID:0:12}" "doctor output"
  rc=0
  muster_launch --preflight --run-dir "$SCRATCH/preflight" -w "node[1-$NODES]" "${CONTAINER_ARGS[@]}" \
    -- sh -c 'echo the-command-ran' >"$out" 2>&1 || rc=$?
  ((rc != 0)) || fail "launch --preflight started a job with node2 lacking the image: $(cat "$out")"
  assert_contains "$(cat "$out")" "$IMAGE_NAME is not on node2" "launch --preflight output"
  [[ $(cat "$out") != *the-command-ran* ]] || fail "launch --preflight ran the command: $(cat "$out")"
  step "8. doctor and launch --preflight named node2 (missing) and node3 (differs); pushing again, the head's" \
    "cache seen by the nodes as on a shared home"
  # The head's cache directory is one the nodes see at the same path (not under /tmp, /root: node-private), as
  # on a home shared with the head: the nodes load the head's own cached archive, which must still be there
  # after their removal round.
  SHARED_CACHE=/var/cache/muster-tests/sh$$
  mkdir -p "$SHARED_CACHE"
  add_cleanup close_shared_cache
  (source "$SCRATCH/head/env" && XDG_CACHE_HOME=$SHARED_CACHE "$MUSTER" image push "$IMAGE_NAME" "${MUSTER_SSH[@]}" \
    -w "node[1-$NODES]") >"$out" 2>&1 || fail "repairing push failed: $(cat "$out")"
  assert_contains "$(cat "$out")" "2 of 3 nodes need it; already there: node1; replacing another image on node3" \
    "repairing push"
  for node in node2 node3; do assert_eq "$IMAGE_ID" "$(node_image_id "$node")" "image id on $node after repair"; done
  [[ -f $SHARED_CACHE/muster/images/$IMAGE_ID/image.tar ]] ||
    fail "the push on a shared home removed the head's own cached archive: $(find "$SHARED_CACHE/muster" | head)"
  [[ ! -e $SHARED_CACHE/muster/images/$IMAGE_ID/.muster-head-cache ]] || fail "the head left its cache's mark"
  XDG_CACHE_HOME=$MUX_HOME "$MUSTER" doctor "${MUSTER_SSH[@]}" -w "node[1-$NODES]" --no-ssh-matrix \
    --container-image "$IMAGE_NAME" >"$out" 2>&1 || true
  assert_contains "$(cat "$out")" "ok    $IMAGE_NAME is ${IMAGE_ID:0:12} on all 3 nodes" "doctor after the repair"
  # The versions doctor reports are those inside the image, as python3 there reads them.
  local inside
  inside=$(node_podman node1 run --rm --network host "${PODMAN_LIMITS[@]}" --entrypoint python3 "$IMAGE_NAME" -c \
    'import importlib.metadata as m, sys; print("python %d.%d.%d, torch %s" % (*sys.version_info[:3], m.version("torch")))')
  assert_contains "$(cat "$out")" "identical on every node (python inside $IMAGE_NAME): $inside" "doctor after the repair"
  step "8. repaired: the same id on all 3 nodes; $inside inside the image on every node"
}

# The repairing push's cache directory: its ssh masters closed, then removed.
SHARED_CACHE=
close_shared_cache() {
  local sock
  [[ -n $SHARED_CACHE && -d $SHARED_CACHE ]] || return 0
  for sock in "$SHARED_CACHE"/muster/ssh/*; do
    [[ -S $sock ]] && timeout 5 ssh -F /dev/null -o ControlPath="$sock" -O exit muster-test >/dev/null 2>&1
  done
  rm -rf "$SHARED_CACHE"
}

# An image on node K whose torch and NCCL metadata say K (see the file's comment, 8c); doctor --json then names
# every node with its own versions, which only the probe inside each node's image can have read.
doctor_versions() {
  local out=$SCRATCH/doctor-versions.json node k rc=0 tag=localhost/muster-test:versions
  step "8c. doctor --json: torch and NCCL versions read inside the image on every node"
  for ((k = 1; k <= NODES; k++)); do
    node=node$k
    node_podman "$node" run --name ct-versions --network host "${PODMAN_LIMITS[@]}" "$IMAGE_NAME" sh -c '
      site=$(python3 -c "import site; print(site.getsitepackages()[0])") && k=$1 &&
      mkdir -p "$site/torch-1.13.1+node$k.dist-info" "$site/nvidia_nccl_cu12-2.99.$k.dist-info" &&
      printf "Metadata-Version: 2.1\nName: torch\nVersion: 1.13.1+node%s\n" "$k" \
        >"$site/torch-1.13.1+node$k.dist-info/METADATA" &&
      printf "Metadata-Version: 2.1\nName: nvidia-nccl-cu12\nVersion: 2.99.%s\n" "$k" \
        >"$site/nvidia_nccl_cu12-2.99.$k.dist-info/METADATA"' sh "$k" >/dev/null ||
      fail "8c. could not make the versions image on $node"
    node_podman "$node" commit -q ct-versions "$tag" >/dev/null
    node_podman "$node" rm ct-versions >/dev/null
  done
  XDG_CACHE_HOME=$MUX_HOME "$MUSTER" doctor "${MUSTER_SSH[@]}" -w "node[1-$NODES]" --no-ssh-matrix --json \
    --container-image "$tag" >"$out" 2>"$out.err" || rc=$?
  assert_eq 2 "$rc" "doctor's exit status with other versions on every node ($(cat "$out" "$out.err"))"
  python3 - "$out" "$NODES" <<'PY' || fail "8c. doctor --json: $(cat "$out")"
import json, re, sys
report, nodes = json.load(open(sys.argv[1])), int(sys.argv[2])
def table(label):
    found = [f["message"] for f in report["findings"]
             if f["check"] == "versions" and f["message"].startswith(label + " is not the same on every node")]
    assert len(found) == 1, f"no single finding about {label}: {report['findings']}"
    return {m.group(2): m.group(1) for m in re.finditer(r"^  (\S+) +(node\d+)$", found[0], re.M)}
torch, nccl = table("torch"), table("torch_nccl")
for k in range(1, nodes + 1):
    node = f"node{k}"
    assert torch.get(node) == f"1.13.1+node{k}", f"{node}'s torch inside the image: {torch}"
    assert nccl.get(node) == f"2.99.{k}", f"{node}'s NCCL inside the image: {nccl}"
PY
  for ((k = 1; k <= NODES; k++)); do node_podman "node$k" rmi "$tag" >/dev/null; done
  step "8c. doctor --json named torch 1.13.1+node<K> and NCCL 2.99.<K> on each node K"
}

node_killed() {
  local job=ct-killnode-$$ out=$SCRATCH/killnode.out t0 left
  step "9. kill-node node3 (heartbeat timeout ${HB_TIMEOUT_S}s)"
  start_muster "$out" --job-id "$job" --run-dir "$SCRATCH/killnode" --heartbeat-timeout "$HB_TIMEOUT_S" \
    -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" "${CONTAINER_ARGS[@]}" -- sh -c 'echo up; sleep 100 & wait'
  wait_until 30 eval '(($(grep -c "] up" "$out") == WORLD))' || fail "job did not start: $(cat "$out")"
  t0=$(now_us)
  "$TESTBED" kill-node node3
  wait_exit "$MUSTER_PID" 15
  local ms
  ms=$(ms_between "$t0" "$EXIT_US")
  step "9. head exited $EXIT_RC, $(fmt_ms "$ms") s after the crash (bound $(fmt_ms "$LOST_BOUND_MS") s)"
  ((EXIT_RC != 0 && EXIT_RC != 124)) || fail "head exit $EXIT_RC; output: $(cat "$out")"
  ((ms <= LOST_BOUND_MS)) || fail "head took $ms ms to exit after node3 crashed"
  assert_contains "$(cat "$out")" "node3 lost" "head output"
  left=$(((t0 + LOST_BOUND_MS * 1000 - $(now_us)) / 1000))
  assert_clean "$job" "$(fmt_ms $((left > 0 ? left : 0)))" node1 node2
  step "9. no container and no job process on node1, node2 $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the crash"
}

main() {
  require_torch
  build_test_image
  launch_setup "$NODES" --containers --mesh
  set_container_args
  head_store
  push
  push_stage
  ddp
  exact_logs
  per_node_torchrun
  worker_killed
  head_killed
  agent_killed
  ssh_killed
  restart_on_spare
  existing_containers
  doctor_images
  doctor_versions
  node_killed  # last: a dead node needs a new testbed
  step "PASS"
}

main
