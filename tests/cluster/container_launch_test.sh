#!/usr/bin/env bash
# container_launch_test.sh — `muster image push`, `muster launch --container-image` / `--container` and
# `muster doctor --container-image` with real podman on 3 testbed nodes (`testbed up 3 --containers --mesh`),
# the image built from Debian packages (tests/cluster/container-image, python3-torch):
#   1. push: the image in the head's own store goes to 3 nodes that lack it (through the relay chain), every
#      node then holds the same id; a second push moves nothing.
#   2. DDP 3 x 2 in containers (examples/ddp_train.py): exit 0, every rank's checksum line in its rank log, on
#      the planned node, all checksums identical; each rank ran inside a container named after the job
#      (muster-<job>-<node rank>) with the working directory mounted at the same path, the limits asked for,
#      the job's environment (--env); no container and no job process left afterwards.
#   3. Byte-exact logs: what each rank wrote (escapes, invalid UTF-8, CRLF, \r, 200 KB lines, a partial last
#      line) is what its rank-N.log holds (cmp against the same script run on the head).
#   4. --per-node: torchrun inside the containers, 3 nodes x 2: the same identical checksums.
#   5. kill -9 of a DDP worker inside a container on node3: the head exits 137 within 5 s naming that rank on
#      node3, and 2 s later no container and no job process is left on any node (the bare-metal limits of
#      launch_teardown_test.sh).
#   6. kill -9 of the head: within 2 s no container and no job process on any node (launch_orphans_test.sh).
#   6b. kill -9 of the agent inside node2's container, and 6c. of the head's ssh client (or master) to node2: within 2 s no
#      job process is left on any node, the head exits non-zero naming node2, and no container is left.
#   7. --container NAME: ranks inside running containers (started here as compose would); the job runs there,
#      and a kill -9 of the head leaves no job process in them within 2 s while the containers stay.
#   8. doctor --container-image: node2 without the image and node3 holding another image under the name are
#      both named (exit 2), and `launch --preflight` starts nothing; push repairs both (node3's image replaced)
#      and doctor then passes the check.
#   8b. Slurm (`testbed slurm up`): `salloc -N3 muster launch --container-image` (the srun transport: the task's
#      stdout is a pty there, so podman attaches through conmon instead of passthrough) runs DDP 3 x 2 with
#      identical checksums and the job's SLURM_JOB_ID inside; `scancel` of a running job leaves no container and
#      no job process within 5 s.
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
for tool in slurmctld slurmd munged salloc sbatch scancel; do
  command -v "$tool" >/dev/null && continue
  [[ ${MUSTER_REQUIRE_CLUSTER:-0} != 1 ]] || fail "missing $tool (scripts/install-deps installs slurm-wlm, munge)"
  echo "SKIP: $TEST_NAME: missing $tool (scripts/install-deps installs slurm-wlm, munge)" >&2
  exit 77
done

readonly NODES=3 PER_NODE=2 WORLD=6 HB_TIMEOUT_S=3
readonly KILL_BOUND_MS=5000 LOST_BOUND_MS=$(((HB_TIMEOUT_S + 2) * 1000))
CHECKSUM_RE='rank ([0-9]+)/([0-9]+) on ([^:]+): checksum ([0-9a-f]{16})'
export MUSTER_TESTBED_CONTAINERS_TMPFS=${MUSTER_TESTBED_CONTAINERS_TMPFS:-3g}
CONTAINER_ARGS=()  # --container-image IMAGE and the limits this VM allows (set_container_args)
MEMLOCK_KB=

# The limits the nodes' podman may set here: this VM lets no process raise a hard limit, and podman sets
# nofile and nproc to its maximum once any --ulimit is given; so each is given at the node's own hard value
# (memlock in KiB as `ulimit -l` shows it: MEMLOCK_KB).
set_container_args() {
  local limits memlock nofile nproc
  limits=$("$TESTBED" exec node1 bash -c 'echo "$(ulimit -Hl) $(ulimit -Hn) $(ulimit -Hu)"')
  read -r MEMLOCK_KB nofile nproc <<<"$limits"
  memlock=-1
  [[ $MEMLOCK_KB == unlimited ]] || memlock=$((MEMLOCK_KB * 1024))
  CONTAINER_ARGS=(--container-image "$IMAGE_NAME" --container-ulimit "memlock=$memlock"
    --container-ulimit "nofile=$nofile:$nofile" --container-ulimit "nproc=$nproc:$nproc")
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
  step "1. pushed to 3 nodes in $(fmt_ms "$ms") s:"$'\n'"$(sed 's/^/    /' "$out")"
  t0=$(now_us)
  head_muster image push "$IMAGE_NAME" "${MUSTER_SSH[@]}" -w "node[1-$NODES]" >"$out" 2>&1 ||
    fail "second image push failed: $(cat "$out")"
  assert_contains "$(cat "$out")" "0 of 3 nodes need it; already there: node1, node2, node3" "second push"
  [[ $(cat "$out") != *sending* ]] || fail "the second push sent the image again: $(cat "$out")"
  step "1. again: nothing to send, $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s"
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

ddp() {
  local job=ct-ddp-$$ run=$SCRATCH/ddp out=$SCRATCH/ddp.out r lines=() found
  step "2. DDP $NODES x $PER_NODE in containers"
  # Each rank also says which container it is in, its limits and an --env variable.
  start_muster "$out" --job-id "$job" --run-dir "$run" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    "${CONTAINER_ARGS[@]}" --env CT_MARK=from-the-head -- sh -c '
      echo "inside $(tr "\0" " " </proc/1/cmdline | cut -d" " -f1) memlock=$(ulimit -l) mark=$CT_MARK cwd=$(pwd)"
      exec python3 examples/ddp_train.py --steps 10'
  wait_exit "$MUSTER_PID" 120
  step "muster exited $EXIT_RC after $(fmt_ms "$(ms_between "$MUSTER_START_US" "$EXIT_US")") s"
  ((EXIT_RC == 0)) || fail "DDP job in containers: exit $EXIT_RC; output:"$'\n'"$(cat "$out")"
  for ((r = 0; r < WORLD; r++)); do
    mapfile -t found < <(grep -E "$CHECKSUM_RE" "$run/rank-$r.log" || true)
    ((${#found[@]} == 1)) || fail "rank-$r.log: expected 1 checksum line: $(cat "$run/rank-$r.log")"
    lines+=("${found[0]}")
    assert_contains "$(head -n 1 "$run/rank-$r.log")" \
      "inside /run/podman-init memlock=$MEMLOCK_KB mark=from-the-head cwd=$REPO" "rank $r's first line"
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

existing_containers() {
  local job=ct-existing-$$ out=$SCRATCH/existing.out node t0 name=ct-svc
  step "7. --container $name: ranks inside running containers"
  for node in node1 node2 node3; do
    node_podman "$node" run -d --name "$name" --label ct.test=1 --network host --ipc host --init -v "$REPO:$REPO" \
      "$IMAGE_NAME" sleep infinity >/dev/null
  done
  muster_launch --run-dir "$SCRATCH/existing" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    --container "$name" -- sh -c 'echo "rank $RANK in $(cat /proc/1/cmdline | tr "\0" " ")"' >"$out" 2>&1 ||
    fail "job in existing containers failed: $(cat "$out")"
  assert_eq "$WORLD" "$(grep -c 'in /run/podman-init -- sleep infinity' "$out" || true)" \
    "ranks that ran inside the running containers ($(cat "$out"))"
  start_muster "$out" --job-id "$job" --run-dir "$SCRATCH/existing2" -w "node[1-$NODES]" \
    --nproc-per-node "$PER_NODE" --container "$name" -- sh -c 'echo up; sleep 100 & wait'
  wait_until 30 eval '(($(grep -c "] up" "$out") == WORLD))' || fail "job did not start: $(cat "$out")"
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
  node_podman node3 run --name ct-change --network host "$IMAGE_NAME" sh -c 'echo changed > /changed' >/dev/null
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
  step "8. doctor and launch --preflight named node2 (missing) and node3 (differs); pushing again"
  head_muster image push "$IMAGE_NAME" "${MUSTER_SSH[@]}" -w "node[1-$NODES]" >"$out" 2>&1 ||
    fail "repairing push failed: $(cat "$out")"
  assert_contains "$(cat "$out")" "2 of 3 nodes need it; already there: node1; replacing another image on node3" \
    "repairing push"
  for node in node2 node3; do assert_eq "$IMAGE_ID" "$(node_image_id "$node")" "image id on $node after repair"; done
  XDG_CACHE_HOME=$MUX_HOME "$MUSTER" doctor "${MUSTER_SSH[@]}" -w "node[1-$NODES]" --no-ssh-matrix \
    --container-image "$IMAGE_NAME" >"$out" 2>&1 || true
  assert_contains "$(cat "$out")" "ok    $IMAGE_NAME is ${IMAGE_ID:0:12} on all 3 nodes" "doctor after the repair"
  step "8. repaired: the same id on all 3 nodes"
}

slurm_in_containers() {
  local out run=/tmp/ct-slurm-$$ lines job=ct-scancel-$$ t0 wrap
  step "8b. Slurm: salloc -N$NODES muster launch --container-image"
  out=$("$TESTBED" slurm up 2>&1) || fail "testbed slurm up: $out"
  out=$("$TESTBED" exec node1 bash -c 'cd "$1" && shift && salloc -N"$1" --ntasks-per-node="$2" "${@:3}"' salloc-ct \
    "$REPO" "$NODES" "$PER_NODE" "$MUSTER" launch "${CONTAINER_ARGS[@]}" --run-dir "$run" \
    -- sh -c 'echo "slurm job $SLURM_JOB_ID"; exec python3 examples/ddp_train.py --steps 5' 2>&1) ||
    fail "8b. DDP in containers under salloc failed: $out"
  mapfile -t lines < <(grep -ohE "$CHECKSUM_RE" <<<"$out" || true)
  check_checksums "8b. salloc DDP" "${lines[@]}"
  [[ $out =~ \]\ slurm\ job\ [0-9]+ ]] || fail "8b. SLURM_JOB_ID not set inside the containers: $out"
  wrap=$(printf '%q ' "$MUSTER" launch "${CONTAINER_ARGS[@]}" --job-id "$job" --run-dir "$run-b" \
    -- sh -c 'echo up; sleep 100 & wait')
  "$TESTBED" exec node1 bash -c 'cd "$1" && sbatch -N"$2" --ntasks-per-node="$3" -o "$4" --wrap "$5"' sbatch-ct \
    "$REPO" "$NODES" "$PER_NODE" "/tmp/ct-sbatch-$$.out" "$wrap" >/dev/null || fail "8b. sbatch failed"
  wait_until 60 eval '(($(count_job_processes "$job") == 2 * WORLD))' ||
    fail "8b. the batch job's ranks did not start: $(all_job_processes "$job")"
  t0=$(now_us)
  "$TESTBED" exec node1 scancel -u root
  assert_clean "$job" 5
  step "8b. scancel: no container and no job process $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s later"
  "$TESTBED" slurm down >/dev/null 2>&1 || true
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
  ddp
  exact_logs
  per_node_torchrun
  worker_killed
  head_killed
  agent_killed
  ssh_killed
  existing_containers
  doctor_images
  slurm_in_containers
  node_killed  # last: a dead node needs a new testbed
  step "PASS"
}

main
